//! The README and the guides in `docs/` stay true: every repository path they name exists, and
//! every command of their `sh` blocks runs. (The README's code blocks run in their own tests:
//! the Rust example as a doctest, the Python example in `python/tests/test_readme.py`, the JS
//! example in `tests/js/readme.test.mjs`, the command lines in `bindings/cli/tests/cli.rs`.)

#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Top-level directories and files a path in the docs may start with.
const TOP: [&str; 14] = [
    "src", "tests", "docs", "examples", "scripts", "benches", "python", "www", "npm", "js", "fuzz",
    ".ci", "crates", "bindings",
];
const ROOT_FILES: [&str; 6] = [
    "README.md",
    "CHANGELOG.md",
    "Cargo.toml",
    "Cargo.lock",
    "package.json",
    "package-lock.json",
];
/// Build output and local state, not in the repository.
const GENERATED: [&str; 7] = [
    "npm/exact/pkg",
    "npm/hybrid/pkg",
    "fuzz/corpus",
    "fuzz/artifacts",
    "python/tool_intent/_tool_intent.abi3.so",
    "npm/exact/node_modules",
    "www/dist",
];

fn documents() -> Vec<PathBuf> {
    let mut out = vec![Path::new(ROOT).join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 8, "the guides are in docs/: {docs:?}");
    out.extend(docs);
    out
}

/// Words in backticks (repository-relative) and the targets of Markdown links (relative to
/// the document), as (text, is a link).
fn candidates(text: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (k, part) in text.split('`').enumerate() {
        if k % 2 == 1 {
            out.extend(part.split_whitespace().map(|w| (w.to_string(), false)));
        }
    }
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let tail = &rest[at + 2..];
        if let Some(end) = tail.find(')') {
            out.push((tail[..end].to_string(), true));
        }
        rest = tail;
    }
    out
}

/// The repository path a candidate names, if it names one.
fn repo_path((candidate, link): &(String, bool), doc: &Path) -> Option<PathBuf> {
    let c = candidate
        .trim_start_matches(|c: char| "\"'(".contains(c))
        .trim_end_matches(|c: char| "\"'(),.;:".contains(c));
    let c = c.split('#').next()?;
    if c.is_empty() || c.contains("://") || c.contains(['*', '<', '{', '$', '=', '?']) {
        return None;
    }
    // Links inside docs/ are relative to it.
    let resolved = if *link && doc.parent()?.ends_with("docs") {
        let joined = Path::new("docs").join(c);
        let normal: PathBuf = joined.components().fold(PathBuf::new(), |mut p, comp| {
            match comp {
                std::path::Component::ParentDir => {
                    p.pop();
                }
                other => p.push(other),
            }
            p
        });
        normal
    } else {
        PathBuf::from(c.trim_start_matches("./"))
    };
    let s = resolved.to_string_lossy().to_string();
    let s = s.split(':').next()?.trim_end_matches('/').to_string();
    let first = s.split('/').next()?;
    let is_repo = (TOP.contains(&first) && s.contains('/')) || ROOT_FILES.contains(&s.as_str());
    if !is_repo || GENERATED.iter().any(|g| s.starts_with(g)) {
        return None;
    }
    Some(PathBuf::from(s))
}

#[test]
fn every_repository_path_in_the_readme_and_the_guides_exists() {
    let mut checked = 0;
    let mut missing = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for c in candidates(&text) {
            if let Some(p) = repo_path(&c, &doc) {
                checked += 1;
                if !Path::new(ROOT).join(&p).exists() {
                    missing.push(format!(
                        "{}: {}",
                        doc.file_name().unwrap().to_string_lossy(),
                        p.display()
                    ));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_a_stale_path() {
    let doc = Path::new(ROOT).join("docs/rules.md");
    let found: Vec<PathBuf> = candidates("see `src/expand.rs` and [x](../src/lib.rs)")
        .iter()
        .filter_map(|c| repo_path(c, &doc))
        .collect();
    assert_eq!(
        found,
        [PathBuf::from("src/expand.rs"), PathBuf::from("src/lib.rs")]
    );
    assert!(!Path::new(ROOT).join(&found[0]).exists());
}

/// The `sh` blocks of the guides: `tool-intent` commands only, each run and successful.
#[test]
fn every_command_of_the_guides_runs() {
    let bin = Path::new(env!("CARGO_BIN_EXE_tool-intent"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for doc in documents().into_iter().skip(1) {
        let text = std::fs::read_to_string(&doc).unwrap();
        for lang in ["```python", "```js", "```rust", "```ts"] {
            assert!(
                !text.contains(lang),
                "{}: add a test that runs its {lang} block",
                doc.display()
            );
        }
        let mut blocks = text.split("```sh\n").skip(1);
        // The migration guide's commands run on a session table of their own.
        let scratch = std::env::temp_dir().join(format!("tool-intent-docs-{}", std::process::id()));
        let migration = doc.ends_with("migration.md");
        if migration {
            let _ = std::fs::remove_dir_all(&scratch);
            std::fs::create_dir_all(&scratch).unwrap();
            let conn = rusqlite::Connection::open(scratch.join("sessions.db")).unwrap();
            conn.execute_batch(r#"CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT); INSERT INTO sessions VALUES (1, '["web_search","memory"]')"#).unwrap();
        }
        for block in blocks.by_ref() {
            // A line ending in `\` continues on the next.
            let block = block[..block.find("```").unwrap()].replace("\\\n", " ");
            for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
                assert!(
                    line.starts_with("tool-intent "),
                    "{}: a guide's sh block holds tool-intent commands only: {line}",
                    doc.display()
                );
                let dir = if migration {
                    scratch.clone()
                } else {
                    PathBuf::from(ROOT)
                };
                let out = Command::new("sh")
                    .args(["-c", line])
                    .current_dir(&dir)
                    .env("PATH", &path)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}: {line}\n{}",
                    doc.display(),
                    String::from_utf8_lossy(&out.stderr)
                );
                ran += 1;
            }
        }
    }
    assert!(ran >= 5, "only {ran} guide commands ran");
}

/// The names `src/lib.rs` re-exports at the crate root (`pub use a::{B, c};`).
fn crate_root_items() -> usize {
    let lib = std::fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap();
    let mut count = 0;
    let mut rest = lib.as_str();
    while let Some(i) = rest.find("\npub use ") {
        rest = &rest[i + "\npub use ".len()..];
        let item = &rest[..rest.find(';').unwrap()];
        count += match (item.find('{'), item.rfind('}')) {
            (Some(a), Some(b)) => item[a + 1..b]
                .split(',')
                .filter(|n| !n.trim().is_empty())
                .count(),
            _ => 1,
        };
    }
    count
}

/// "the N items" in the README and the guides is the crate root's real count.
#[test]
fn the_crate_root_count_in_the_docs_is_the_real_one() {
    let real = crate_root_items();
    assert!(real >= 20, "re-exports are read: {real}");
    let mut seen = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for (at, _) in text.match_indices(" items") {
            let before = &text[..at];
            let number: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let about_root = before[before.len().saturating_sub(60)..].contains("crate root");
            if !number.is_empty() && about_root {
                seen += 1;
                assert_eq!(
                    number.parse::<usize>().unwrap(),
                    real,
                    "{} says the crate root holds {number} items; src/lib.rs re-exports {real}",
                    doc.display()
                );
            }
        }
    }
    assert!(
        seen >= 2,
        "the README and docs/layout.md state the count: {seen} found"
    );
}

/// Every heading has something under it before the next heading of its level or above.
#[test]
fn no_heading_is_empty() {
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut in_code = false;
        let mut headings: Vec<(usize, usize)> = Vec::new(); // (line, level)
        for (n, line) in lines.iter().enumerate() {
            if line.starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && line.starts_with('#') {
                let level = line.chars().take_while(|c| *c == '#').count();
                headings.push((n, level));
            }
        }
        for (k, &(n, level)) in headings.iter().enumerate() {
            let end = headings[k + 1..]
                .iter()
                .find(|&&(_, l)| l <= level)
                .map_or(lines.len(), |&(m, _)| m);
            let next_heading = headings.get(k + 1).map_or(lines.len(), |&(m, _)| m);
            let body = lines[n + 1..next_heading.min(end)]
                .iter()
                .any(|l| !l.trim().is_empty());
            let has_sub = next_heading < end;
            assert!(
                body || has_sub,
                "{}:{}: heading {:?} has nothing under it",
                doc.display(),
                n + 1,
                lines[n]
            );
        }
    }
}

/// The contract's list of warning codes names every code the library has.
#[test]
fn the_contract_lists_every_warning_code() {
    let source = std::fs::read_to_string(Path::new(ROOT).join("src/warning.rs")).unwrap();
    let codes: Vec<&str> = source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("WarningCode::"))
        .filter_map(|l| l.split("=> \"").nth(1))
        .map(|c| c.trim_end_matches("\","))
        .collect();
    assert!(codes.len() >= 15, "codes are read: {codes:?}");
    let contract = std::fs::read_to_string(Path::new(ROOT).join("docs/contract.md")).unwrap();
    for code in codes {
        assert!(
            contract.contains(&format!("`{code}`")),
            "docs/contract.md does not name warning `{code}`"
        );
    }
}
