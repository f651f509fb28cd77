//! The hand-written TypeScript declarations (`src/types.d.ts`) name the same warning
//! and error codes as the Rust enums. (The shapes of the JS outputs are checked by
//! `tests/js/types.test.mjs`, which type-checks real values against the declarations.)

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use tool_intent::error::StoreFault;
use tool_intent::{Error, WarningCode};

fn declarations() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/types.d.ts")).unwrap()
}

/// The string literals of `export type NAME = | "a" | "b";`.
fn union(name: &str) -> BTreeSet<String> {
    let text = declarations();
    let start = text
        .find(&format!("export type {name} ="))
        .unwrap_or_else(|| panic!("no type {name} in types.d.ts"));
    let body = &text[start..];
    let end = body.find(';').unwrap();
    body[..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn warning_codes_match_the_rust_enum() {
    let rust: BTreeSet<String> = WarningCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect();
    assert_eq!(union("WarningCode"), rust);
}

#[test]
fn error_codes_match_the_rust_enum() {
    let path = tool_intent::JsonPath::root();
    // One value of every variant (a match below makes adding a variant fail to compile here).
    let all = [
        Error::InvalidJson {
            input: "x",
            line: 1,
            column: 1,
            message: String::new(),
        },
        Error::InvalidValue {
            input: "x",
            path: path.clone(),
            message: String::new(),
        },
        Error::InvalidRegistry {
            input: "document",
            path: path.clone(),
            message: String::new(),
        },
        Error::LimitExceeded {
            input: "x",
            path: path.clone(),
            message: String::new(),
        },
        Error::UnknownSource {
            name: String::new(),
            known: String::new(),
        },
        Error::InvalidArgument {
            argument: "x",
            path: None,
            message: String::new(),
        },
        Error::ToolNotAvailable {
            name: String::new(),
            reason: String::new(),
        },
        Error::ToolRemoved {
            name: String::new(),
            server: None,
            withdrawn: false,
        },
        Error::ProviderExecuted {
            name: String::new(),
            provider: String::new(),
        },
        Error::Database {
            message: String::new(),
            source: None,
        },
        Error::Internal {
            message: String::new(),
        },
    ];
    // The store's faults (native only, like `database`): one error per fault.
    let all: Vec<Error> = all
        .into_iter()
        .chain(
            [
                StoreFault::Unavailable,
                StoreFault::UnknownVersion,
                StoreFault::CorruptVersion,
                StoreFault::NewerSchema,
            ]
            .map(|fault| Error::Store {
                fault,
                message: String::new(),
            }),
        )
        .collect();
    for e in &all {
        match e {
            Error::InvalidJson { .. }
            | Error::InvalidValue { .. }
            | Error::InvalidRegistry { .. }
            | Error::LimitExceeded { .. }
            | Error::UnknownSource { .. }
            | Error::InvalidArgument { .. }
            | Error::ToolNotAvailable { .. }
            | Error::ToolRemoved { .. }
            | Error::ProviderExecuted { .. }
            | Error::Database { .. }
            | Error::Store { .. }
            | Error::Internal { .. } => {}
        }
    }
    let rust: BTreeSet<String> = all.iter().map(|e| e.code().to_string()).collect();
    assert_eq!(rust.len(), all.len(), "codes are distinct");
    assert_eq!(union("ToolIntentErrorCode"), rust);
}
