//! The native CLI as a user runs it.

#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tool-intent"))
        .args(args)
        .output()
        .expect("run tool-intent")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// The nine MCP servers of the scripted sessions.
const SESSION_SERVERS: [&str; 9] = [
    "everything",
    "fetch",
    "filesystem",
    "git",
    "github",
    "memory",
    "playwright",
    "seqthink",
    "time",
];

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/data/mcp/{name}.json",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    )
}

#[test]
fn expand_prints_one_json_object() {
    let o = run(&["expand"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for key in ["array", "catalog", "promoted", "warnings", "fingerprint"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert!(v["catalog"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "playwright_browser"));
    assert!(v["fingerprint"].as_str().unwrap().starts_with("sha256:"));
}

#[test]
fn expand_matches_the_library() {
    let o = run(&[
        "expand",
        "--override",
        r#"{"enabled":true,"web_search":true}"#,
        "--provider",
        "openai-responses",
        "--loaded",
        "send_message",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let r = tool_intent::Registry::embedded();
    let p = r
        .plan_turn(&tool_intent::TurnRequest {
            tools_override: tool_intent::ToolsOverride::from_json_str(
                r#"{"enabled":true,"web_search":true}"#,
            )
            .unwrap(),
            provider: tool_intent::Provider::OpenAiResponses,
            state: r.begin_turn(
                &tool_intent::record_loaded(&Default::default(), &["send_message"]).unwrap(),
            ),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(v["fingerprint"], serde_json::json!(p.fingerprint));
    assert_eq!(
        v["array"].as_array().unwrap().last().unwrap(),
        "send_message"
    );
}

#[test]
fn malformed_override_exits_2_and_names_the_path() {
    let o = run(&["expand", "--override", r#"{"disabled":[1]}"#]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("disabled"), "{err}");
    assert!(err.contains("$.disabled[0]"), "{err}");
}

#[test]
fn bad_inputs_exit_2_with_one_line_naming_the_flag() {
    for (args, flag) in [
        (vec!["expand", "--override", "{not json"], "--override"),
        (vec!["expand", "--override", "42"], "--override"),
        (
            vec!["expand", "--override", "@/no/such/file.json"],
            "--override",
        ),
        (vec!["expand", "--source", "nope"], "--source"),
        (
            vec!["expand", "--registry", "/no/such/file.json"],
            "--registry",
        ),
        (vec!["expand", "--registry", "/"], "--registry"),
        (vec!["expand", "--mcp", "github"], "--mcp"),
        (
            vec!["expand", "--mcp", "github=/no/such/file.json"],
            "--mcp",
        ),
        (
            vec!["payload", "--provider", "openai-chat", "--mode", "native"],
            "--mode",
        ),
        (
            vec!["canonical", "--override", r#"{"enabled":"yes"}"#],
            "--override",
        ),
        (vec!["expand", "--state", "{\"loaded\": 3}"], "--state"),
        (
            vec!["build-intent", "--toggles", "@/no/such/file"],
            "--toggles",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(&format!(": {flag}")), "{args:?}: {err}");
    }
    let o = run(&["expand", "--source", "nope"]);
    assert!(stderr(&o).contains("unknown source \"nope\""));
}

#[test]
fn a_file_given_without_its_at_sign_is_said_so() {
    // `--script session.json` read as JSON text failed at line 1, column 1.
    let file = fixture("git");
    for flag in ["--override", "--state", "--profile"] {
        let o = run(&["expand", flag, &file]);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{flag}: \"{file}\" is a file"))
                && err.contains("put @ before the path"),
            "{err}"
        );
    }
    // JSON text is JSON text, whatever file its name would be.
    let o = run(&["expand", "--override", "null"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn canonical_prints_canonical_intent() {
    let o = run(&[
        "canonical",
        "--override",
        r#"{"web_search":true,"disabled":["b","a","a"],"enabled":null}"#,
    ]);
    assert_eq!(
        stdout(&o),
        "{\"disabled\":[\"a\",\"b\"],\"web_search\":true}\n"
    );
    assert_eq!(stderr(&o), "");
    // A key this version does not know (JS's camelCase, say) is kept, and said to be ignored.
    let o = run(&["canonical", "--override", r#"{"webSearch":true}"#]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{\"webSearch\":true}\n");
    assert_eq!(
        stderr(&o),
        "tool-intent: warning [unknown_intent_key]: intent key \"webSearch\" is not known to \
         this version (known: allowed, disabled, enabled, toolset, web_search); kept, ignored\n"
    );
}

#[test]
fn payload_prints_exact_bytes_and_catalog() {
    let o = run(&["payload"]);
    let golden = std::fs::read_to_string(format!(
        "{}/tests/golden/anthropic.default.json",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap();
    assert_eq!(stdout(&o), golden);
    let o = run(&["payload", "--catalog"]);
    assert!(stdout(&o).lines().any(|l| l == "enter_plan_mode"));
}

#[test]
fn search_runs_tool_search() {
    let v = search_github("+github pull request");
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 5);
    assert!(hits
        .iter()
        .all(|h| h.as_str().unwrap().starts_with("mcp__github__")));
    assert_eq!(v["state"]["loaded"], v["hits"]);
}

#[test]
fn the_query_may_be_the_words_after_the_command() {
    let words = run(&[
        "search",
        "+github",
        "pull",
        "request",
        "--mcp",
        &format!("github={}", fixture("github")),
    ]);
    let flag = run(&[
        "search",
        "--query",
        "+github pull request",
        "--mcp",
        &format!("github={}", fixture("github")),
    ]);
    assert!(words.status.success(), "{}", stderr(&words));
    assert!(stdout(&words).starts_with("Loaded 5 tools, which can be called at once"));
    assert_eq!(stdout(&words), stdout(&flag));
    // One of the two is required, and not both.
    let none = run(&["search"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(
        stderr(&none).contains("<--query <QUERY>|WORDS>"),
        "{}",
        stderr(&none)
    );
    let both = run(&["search", "a", "--query", "b"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );
}

/// Deferring one small tool costs more than it saves (the catalog and `tool_search` outweigh
/// it): the totals say "costs", never a negative saving.
#[test]
fn budget_says_when_deferral_costs_more_than_it_saves() {
    let intent = r#"{"toolset":"research","web_search":true,"disabled":["memory"]}"#;
    let preview = stdout(&run(&["preview", "--override", intent]));
    let totals = preview.lines().find(|l| l.starts_with("array: ")).unwrap();
    assert!(totals.contains("catalog: 1 name,"), "{totals}");
    assert!(totals.contains("(deferral costs "), "{totals}");
    let budget = stdout(&run(&["budget", "--override", intent]));
    let all = budget
        .lines()
        .find(|l| l.starts_with("all resident"))
        .unwrap();
    assert!(all.contains("(deferral costs "), "{all}");
    assert!(!all.contains(" -"), "{all}");
}

#[test]
fn preview_is_a_readable_table() {
    let o = run(&[
        "preview",
        "--override",
        r#"{"toolset":"research","web_search":true}"#,
    ]);
    let text = stdout(&o);
    assert!(text.contains("fingerprint: sha256:"));
    // Anthropic runs the embedded web search itself.
    assert!(text
        .lines()
        .any(|l| l.trim_start().starts_with("web_search") && l.contains("built-in")));
    assert!(text.contains("deferral saves"));
    // What each tool does, by its annotations as believed.
    let row = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{text}"))
            .to_string()
    };
    assert!(
        row("read_file").ends_with("read-only, closed"),
        "{}",
        row("read_file")
    );
    // The embedded tools say what they do: searching reads only (issue 48).
    assert!(
        row("tool_search").ends_with("read-only, closed"),
        "{}",
        row("tool_search")
    );
    assert!(
        row("web_search").ends_with("read-only"),
        "{}",
        row("web_search")
    );
    assert!(
        row("memory").ends_with("destructive, closed"),
        "{}",
        row("memory")
    );
    let o = run(&[
        "preview",
        "--mcp",
        &format!("time={}", fixture("time")),
        "--override",
        r#"{"toolset":"full","allowed":["mcp__time__*"]}"#,
    ]);
    let text = stdout(&o);
    assert!(
        text.lines()
            .any(|l| l.contains("mcp__time__get_current_time")
                && l.ends_with("destructive (untrusted)")),
        "{text}"
    );
    let o = run(&[
        "preview",
        "--mcp",
        &format!("time={}", fixture("time")),
        "--trust",
        "time",
        "--override",
        r#"{"toolset":"readonly"}"#,
    ]);
    let text = stdout(&o);
    assert!(
        text.lines()
            .any(|l| l.contains("mcp__time__get_current_time") && l.ends_with("read-only, closed")),
        "{text}"
    );
    // The registry's other tools are named, so the header's count adds up: the research
    // preset leaves out 9 of the embedded 17 (web search is in the preset).
    let text = stdout(&run(&[
        "preview",
        "--override",
        r#"{"toolset":"research"}"#,
    ]));
    let left_out = text
        .lines()
        .find(|l| l.starts_with("not offered this turn: "))
        .unwrap_or_else(|| panic!("no line of tools left out:\n{text}"));
    assert_eq!(
        left_out,
        "not offered this turn: 9 of 17 tools (write_file, edit_file, shell, send_message, \
         playwright_browser, enter_plan_mode, exit_plan_mode, worktree, image)"
    );
    let o = run(&["preview", "--trust", "bad name"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--trust"), "{}", stderr(&o));
}

#[test]
fn registry_file_and_mcp_merge() {
    let o = run(&["expand", "--registry", &fixture("time")]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["array"],
        serde_json::json!(["get_current_time", "convert_time"])
    );
    let bad = std::env::temp_dir().join("tool-intent-bad-registry.json");
    std::fs::write(&bad, r#"{"tools":[{"name":"a b","parameters":{}}]}"#).unwrap();
    let o = run(&["expand", "--registry", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("$.tools[0].name"), "{}", stderr(&o));
}

#[test]
fn build_intent_prints_intent_and_row() {
    let o = run(&[
        "build-intent",
        "--toggles",
        r#"{"toolset":"research","web_search":true}"#,
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["intent"],
        serde_json::json!({"toolset": "research", "web_search": true})
    );
    assert_eq!(v["row"]["tools_override"], serde_json::Value::Null);
    assert_eq!(v["row"]["toolset"], "research");
}

#[test]
fn a_file_over_the_input_limit_is_refused_without_reading_it() {
    // A sparse 750 MB file: the size alone refuses it (no read, no parse).
    let path = std::env::temp_dir().join(format!("tool-intent-huge-{}.json", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(750 * 1024 * 1024).unwrap();
    drop(f);
    let o = run(&["expand", "--registry", path.to_str().unwrap()]);
    std::fs::remove_file(&path).ok();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("larger than the 67108864-byte input limit"),
        "{}",
        stderr(&o)
    );
}

/// Inputs that are not regular files (devices, pipes, `/dev/stdin`) say nothing by their
/// size: every one stops at the input limit with the same error instead of reading forever.
#[test]
fn every_input_stops_at_the_limit_whatever_the_file_is() {
    let limit = "larger than the 67108864-byte input limit";
    let cases: Vec<Vec<&str>> = vec![
        vec!["preview", "--registry", "/dev/zero"],
        vec!["expand", "--override", "@/dev/zero"],
        vec!["expand", "--profile", "@/dev/zero"],
        vec!["expand", "--state", "@/dev/zero"],
        vec!["expand", "--mcp", "x=/dev/zero"],
        vec!["cache-report", "--script", "@/dev/zero"],
        vec!["canonical", "--override", "@/dev/zero"],
    ];
    for args in &cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(limit), "{args:?}: {}", stderr(&o));
    }
    // A pipe that never ends, read as /dev/stdin.
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-intent"))
        .args(["expand", "--registry", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![b' '; 1 << 16];
        // Ends when the reader closes the pipe (a write error), bounded all the same.
        for _ in 0..4096 {
            if pipe.write_all(&block).is_err() {
                break;
            }
        }
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(limit), "{}", stderr(&o));
}

/// An `--mcp` file's error names the flag and a path rooted at that file.
#[test]
fn mcp_errors_are_rooted_at_their_file() {
    let dir = std::env::temp_dir().join(format!("tool-intent-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"tools": [{"name": 7}]}"#).unwrap();
    let null = dir.join("null.json");
    std::fs::write(&null, "null").unwrap();
    // A good server first, the file under test second.
    let with_bad = || {
        run(&[
            "expand",
            "--mcp",
            &format!("time={}", fixture("time")),
            "--mcp",
            &format!("b={}", bad.display()),
        ])
    };
    let o = with_bad();
    // A server's unusable tool is left out with a warning (the rest of the server loads).
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("--mcp b={}: ", bad.display())),
        "{err}"
    );
    assert!(err.contains("at $.tools[0].name"), "{err}");
    assert!(!err.contains("$[1]"), "{err}");
    std::fs::write(&bad, r#"{"tools": [1,"#).unwrap();
    let o = with_bad();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("--mcp b={}: ", bad.display())),
        "{err}"
    );
    let o = run(&["expand", "--mcp", &format!("n={}", null.display())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("server \"n\" is null"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn state_and_toggles_errors_name_the_flag_and_the_path() {
    let o = run(&["expand", "--state", r#"{"loaded":["a",1]}"#]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--state: invalid state at $.loaded[1]"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "build-intent",
        "--toggles",
        r#"{"picked":["a"],"web_search":true}"#,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--toggles: invalid toggles at $.picked"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "expand",
        "--mcp",
        &format!("s={}", fixture("time")),
        "--mcp",
        &format!("s={}", fixture("git")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--mcp s="), "{}", stderr(&o));
}

/// The issue-14 session from the command line: the same reports as the Rust API
/// (`tests/cache_report.rs` wrote them to tests/golden/cache-report.json), and a table.
#[test]
fn cache_report_prints_the_same_figures_as_the_library() {
    let servers = SESSION_SERVERS;
    let specs: Vec<String> = servers
        .iter()
        .map(|s| format!("{s}={}", fixture(s)))
        .collect();
    let script = format!(
        "@{}/tests/data/cache-session.json",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    let mut reports = Vec::new();
    for provider in ["anthropic", "openai-responses"] {
        let mut args: Vec<&str> = vec![
            "cache-report",
            "--script",
            &script,
            "--provider",
            provider,
            "--json",
        ];
        for s in &specs {
            args.extend(["--mcp", s]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Vec<serde_json::Value> = serde_json::from_str(&stdout(&o)).unwrap();
        reports.extend(v);
    }
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/tests/golden/cache-report.json",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(serde_json::Value::from(reports), golden);
    // The table names each mode and its total.
    let mut args: Vec<&str> = vec![
        "cache-report",
        "--script",
        &script,
        "--mode",
        "native-client",
    ];
    for s in &specs {
        args.extend(["--mcp", s]);
    }
    let table = stdout(&run(&args));
    assert!(
        table.starts_with("anthropic / native-client (estimate tokens)"),
        "{table}"
    );
    assert!(
        table.contains("total: 0 rewrites, 0 tokens written again"),
        "{table}"
    );
    // The session flags hold for the whole script: with the tools loaded beforehand, the
    // search joins nothing; with tools off for the profile there is nothing to load.
    let short = r#"{"turns": [{}, {"searches": ["select:enter_plan_mode"]}, {}]}"#;
    let rewrites = |extra: &[&str]| -> u64 {
        let mut args = vec![
            "cache-report",
            "--script",
            short,
            "--mode",
            "catalog",
            "--json",
        ];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v[0]["rewrites"].as_u64().unwrap()
    };
    assert_eq!(rewrites(&[]), 1);
    assert_eq!(rewrites(&["--loaded", "enter_plan_mode"]), 0);
    assert_eq!(rewrites(&["--profile", r#"{"enabled":false}"#]), 0);
    // A bad script names the member.
    let o = run(&[
        "cache-report",
        "--script",
        r#"{"turns": [{"searches": "x"}]}"#,
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--script") && stderr(&o).contains("$.turns[0].searches"),
        "{}",
        stderr(&o)
    );
}

/// Every line of the README's "Command line" block runs and succeeds, from the repository root
/// (its fixture paths are relative to it). Without `exact-tokens` the `--counter o200k` line
/// must instead fail and name the feature.
#[test]
fn readme_command_lines_run() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let section = &readme[readme
        .find("### Command line")
        .expect("README: ### Command line")..];
    let block = &section[section.find("```sh\n").unwrap() + 6..];
    let block = &block[..block.find("```").unwrap()];
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_tool-intent"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let command = line.split("  #").next().unwrap().trim();
        assert!(
            command.starts_with("tool-intent "),
            "not a CLI line: {line}"
        );
        let o = Command::new("sh")
            .args(["-c", command])
            .env("PATH", &path)
            .current_dir(root)
            .output()
            .unwrap();
        let exact_only = command.contains("--counter o200k");
        if exact_only && !cfg!(feature = "exact-tokens") {
            assert!(!o.status.success(), "{command}");
            assert!(
                stderr(&o).contains("exact-tokens"),
                "{command}: {}",
                stderr(&o)
            );
        } else {
            assert!(o.status.success(), "{command}: {}", stderr(&o));
            assert!(!o.stdout.is_empty(), "{command}: no output");
        }
        ran += 1;
    }
    assert!(ran >= 9, "only {ran} README command lines found");
}

#[test]
fn check_exits_1_on_findings_and_0_when_clean() {
    let o = run(&["check", "--provider", "openai-chat"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("changed  description_length   read_file"),
        "{out}"
    );
    // The embedded web search is OpenAI Chat's only as a function (its own is for search
    // models, and only when the registry lists openai-chat).
    assert!(
        out.contains("changed  builtin_fallback     web_search"),
        "{out}"
    );
    assert!(
        out.contains("check: 10 for openai-chat: 0 refused, 10 changed"),
        "{out}"
    );
    let o = run(&["check", "--provider", "anthropic"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("clean for anthropic"));
    let registry = std::env::temp_dir().join("tool-intent-check-gemini.json");
    std::fs::write(
        &registry,
        r#"[{"name":"2fa","parameters":{"type":"object"}}]"#,
    )
    .unwrap();
    let o = run(&[
        "check",
        "--provider",
        "gemini",
        "--json",
        "--registry",
        registry.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["findings"][0]["rule"], "gemini_name");
    assert_eq!(v["findings"][0]["refused"], true);
}

// The rough edges a new user met (issue 25), one test each.

#[test]
fn errors_blame_the_flag_at_fault() {
    let o = run(&["payload", "--provider", "openai-chat", "--mode", "native"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--mode: invalid mode"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "search",
        "--provider",
        "openai-chat",
        "--mode",
        "native-client",
        "--query",
        "x",
    ]);
    assert!(
        stderr(&o).contains("--mode: invalid mode"),
        "{}",
        stderr(&o)
    );
    let o = run(&["search", "--query", "select:"]);
    assert!(stderr(&o).contains("--query:"), "{}", stderr(&o));
    let o = run(&["expand", "--source", "nope"]);
    assert!(
        stderr(&o).contains("--source: unknown source"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn payload_warns_on_stderr_about_unknown_loaded_names_like_expand() {
    let o = run(&["payload", "--loaded", "no_such_tool"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with('['), "stdout is the payload alone");
    assert!(
        stderr(&o).contains("warning [unknown_loaded_tool]") && stderr(&o).contains("no_such_tool"),
        "{}",
        stderr(&o)
    );
    let e = run(&["expand", "--loaded", "no_such_tool"]);
    assert!(stdout(&e).contains("unknown_loaded_tool"));
}

#[test]
fn search_says_when_nothing_is_deferred_and_names_a_required_term_that_matched_nothing() {
    let o = run(&[
        "search",
        "--registry",
        &fixture("git"),
        "--query",
        "git status",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .starts_with("Nothing is deferred"),
        "{v}"
    );
    assert_eq!(v["warnings"][0]["code"], "nothing_deferred");
    let miss = run(&["search", "--query", "zyzzyva"]);
    // Ended by a newline, as every other answer is, so a shell prompt starts on its own line.
    assert_eq!(stdout(&miss), "No deferred tool matched.\n");
    let phone = run(&["search", "--query", "call +4915123456 about plan mode"]);
    assert!(
        stdout(&phone).contains("required term +4915123456"),
        "{}",
        stdout(&phone)
    );
}

#[test]
fn a_name_listed_twice_warns_and_renamed_entries_name_their_server() {
    let dir = std::env::temp_dir().join("tool-intent-dup-server");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("dup.json");
    std::fs::write(
        &file,
        r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object"}},{"name":"b.c","inputSchema":{"type":"object"}}]}"#,
    )
    .unwrap();
    let o = run(&["expand", "--mcp", &format!("s={}", file.display())]);
    // Registry warnings (what loading changed) go to stderr, as quarantined tools do.
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let message = stderr(&o);
    assert!(
        message.contains("warning [duplicate_tool_name]")
            && message
                .contains("tool \"a\" of MCP server \"s\" left out: the server lists \"a\" twice"),
        "{message}"
    );
    assert_eq!(v["renamed"][0]["server"], "s");
    assert_eq!(v["renamed"][0]["source"], "b.c");
    // The preview shows the renamed tool offered, under its wire name, and not among the
    // registry's tools this turn leaves out.
    let preview = stdout(&run(&[
        "preview",
        "--mcp",
        &format!("s={}", file.display()),
    ]));
    let wire = v["renamed"][0]["wire"].as_str().unwrap();
    assert!(
        preview.contains(&format!("{wire} (MCP name b.c)")),
        "{preview}"
    );
    let left_out = preview
        .lines()
        .find(|l| l.starts_with("not offered this turn: "))
        .unwrap_or_else(|| panic!("{preview}"));
    assert!(!left_out.contains("mcp__s__"), "{left_out}");
}

/// `--limit` left out takes the library's default: the help states it and the bounds from the
/// library's constants, and a keyword query without the flag returns that many hits.
#[test]
fn search_help_states_the_library_default_limit() {
    use tool_intent::registry::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};
    let help = stdout(&run(&["search", "--help"]));
    let stated = format!("(1 to {MAX_SEARCH_LIMIT}; default: {DEFAULT_SEARCH_LIMIT})");
    assert!(help.contains(&stated), "{help}");
    let v = search_github("github");
    assert_eq!(v["hits"].as_array().unwrap().len(), DEFAULT_SEARCH_LIMIT);
}

/// `--table` left out is the migration crate's default table, which the help names.
#[test]
fn migrate_and_audit_help_state_the_library_default_table() {
    let stated = format!("[default: {}]", tool_intent_migrate::DEFAULT_TABLE);
    for command in ["migrate", "audit"] {
        let help = stdout(&run(&[command, "--help"]));
        let line = help.lines().find(|l| l.contains("--table")).unwrap_or("");
        assert!(line.contains(&stated), "{command}: {help}");
    }
}

/// `search --json` over the embedded registry plus the GitHub server, every tool offered.
fn search_github(query: &str) -> serde_json::Value {
    let o = run(&[
        "search",
        "--mcp",
        &format!("github={}", fixture("github")),
        "--override",
        r#"{"toolset":"full"}"#,
        "--query",
        query,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// Every command's help says what each option is and what each of its values means: an
/// option followed straight away by its default or its values has no text, and clap prints
/// `[possible values: …]` in long help only for a choice none of whose values is described.
#[test]
fn every_option_and_every_choice_is_described_in_the_help() {
    let commands_of = |help: &str| -> Vec<String> {
        let listed = help.split("Commands:\n").nth(1).unwrap_or("");
        listed
            .lines()
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|c| *c != "help")
            .map(String::from)
            .collect()
    };
    let mut commands: Vec<Vec<String>> = Vec::new();
    for top in commands_of(&stdout(&run(&["--help"]))) {
        let help = stdout(&run(&[&top, "--help"]));
        let subs = commands_of(&help);
        if subs.is_empty() {
            commands.push(vec![top]);
        } else {
            commands.extend(subs.into_iter().map(|s| vec![top.clone(), s]));
        }
    }
    assert!(commands.len() >= 14, "{commands:?}");
    for command in &commands {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let help = stdout(&run(&args));
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let option = line.trim_start();
            let is_option =
                line.starts_with("  ") && option.starts_with('-') && !option.starts_with("- ");
            // Short help puts the text on the option's line, two spaces after it; long help
            // on the next line.
            if is_option && !option.contains("  ") {
                let next = lines.get(i + 1).map_or("", |l| l.trim());
                assert!(
                    !next.is_empty()
                        && !next.starts_with('[')
                        && !next.starts_with("Possible values"),
                    "{command:?}: {option} has no description:\n{help}"
                );
            }
            if let Some(value) = option.strip_prefix("- ") {
                let described = value
                    .split_once(':')
                    .is_some_and(|(_, text)| !text.trim().is_empty());
                assert!(
                    described,
                    "{command:?}: value {value} has no description:\n{help}"
                );
            }
            assert!(
                !option.starts_with("[possible values:"),
                "{command:?}: {line}:\n{help}"
            );
        }
    }
}

#[test]
fn expand_help_names_the_keys_it_prints() {
    let help = stdout(&run(&["expand", "--help"]));
    let first = help.lines().next().unwrap();
    let listed = &first[first.find('(').unwrap() + 1..first.rfind(')').unwrap()];
    let listed: Vec<&str> = listed.split(", ").collect();
    let v: serde_json::Value = serde_json::from_str(&stdout(&run(&["expand"]))).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut a = listed.clone();
    a.sort_unstable();
    let mut b = keys.clone();
    b.sort_unstable();
    assert_eq!(a, b, "expand --help lists {listed:?}, prints {keys:?}");
}

#[test]
fn payload_prints_change_messages_and_the_state_to_keep() {
    // First turn: the catalog travels in the change message; the state to keep is stderr's
    // last line.
    let o = run(&[
        "payload",
        "--tool-changes",
        "messages",
        "--changes",
        "--override",
        r#"{"enabled":true}"#,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let items: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(items[0]["role"], "system");
    assert_eq!(items[0]["content"][0]["type"], "text");
    let state = stderr(&o).lines().last().unwrap().to_string();
    assert!(state.contains("\"conversation\""), "{state}");
    // Next turn, shell disabled: its removal, and the tools array as the first turn sent it.
    let first = stdout(&run(&[
        "payload",
        "--tool-changes",
        "messages",
        "--override",
        r#"{"enabled":true}"#,
    ]));
    let next = [
        "--tool-changes",
        "messages",
        "--state",
        &state,
        "--override",
        r#"{"enabled":true,"disabled":["shell"]}"#,
    ];
    let o = run(&[&["payload", "--changes"][..], &next[..]].concat());
    assert!(
        stdout(&o)
            .contains(r#"{"type":"tool_removal","tool":{"type":"tool_reference","name":"shell"}}"#),
        "{}",
        stdout(&o)
    );
    assert_eq!(stdout(&run(&[&["payload"][..], &next[..]].concat())), first);
    // On OpenAI Responses the withdrawn tool leaves `tool_choice`'s allowed tools: the
    // request fields are a JSON object to merge into the request.
    let first = run(&[
        "payload",
        "--provider",
        "openai-responses",
        "--tool-changes",
        "messages",
        "--changes",
        "--override",
        r#"{"enabled":true}"#,
    ]);
    let state = stderr(&first).lines().last().unwrap().to_string();
    let o = run(&[
        "payload",
        "--provider",
        "openai-responses",
        "--tool-changes",
        "messages",
        "--request-fields",
        "--state",
        &state,
        "--override",
        r#"{"enabled":true,"disabled":["shell"]}"#,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fields: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let allowed = fields["tool_choice"]["tools"].as_array().unwrap();
    assert!(
        !allowed.is_empty() && !allowed.iter().any(|t| t["name"] == "shell"),
        "{fields}"
    );
    // A provider without change messages is an error naming the flag and the alternatives.
    let o = run(&[
        "payload",
        "--tool-changes",
        "messages",
        "--provider",
        "gemini",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(r#"use "array""#), "{}", stderr(&o));
}

#[test]
fn cache_report_with_tool_changes_as_messages_rewrites_nothing_on_the_toggle_session() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let script = format!("@{root}/tests/data/cache-session-toggles.json");
    let mut args = vec![
        "cache-report".to_string(),
        "--script".into(),
        script,
        "--tool-changes".into(),
        "messages".into(),
        "--json".into(),
    ];
    for s in SESSION_SERVERS {
        args.push("--mcp".into());
        args.push(format!("{s}={}", fixture(s)));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let reports: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Change messages go with catalog mode, and on Anthropic with native-client: two reports.
    let modes: Vec<&str> = reports
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["catalog", "native-client"]);
    for r in reports.as_array().unwrap() {
        assert_eq!(
            (&r["toolChanges"], &r["rewrites"]),
            (&"messages".into(), &0.into())
        );
    }
    let o = run(&[&args[..], &["--provider", "bedrock-converse"][..]].concat());
    let reports: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(reports.as_array().unwrap().len(), 1);
    assert_eq!(reports[0]["rewrites"], 1);
}

/// `--trust` adds servers to the registry's trust and never widens it: an untrusted server's
/// tool claiming `readOnlyHint` stays out of the read-only preset and past a `@destructive`
/// ceiling, whatever `--trust` names (issue 47: the registry was rebuilt from a document that
/// wrote the server's tools as the registry's own).
#[test]
fn trust_never_believes_a_server_it_does_not_name() {
    let dir = std::env::temp_dir().join(format!("ti-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("reg.json");
    let doc = serde_json::json!({
        "tools": [{"name": "note", "description": "Write a note.", "parameters": {"type": "object"},
                   "annotations": {"readOnlyHint": true}}],
        "toolsets": {"readonly": ["@read_only"]},
        "sources": {"kiosk": {"deny": ["@destructive"]}},
        "mcp_servers": [{"name": "evil", "tools": [{"name": "rm_rf", "description": "Removes everything.",
            "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "destructiveHint": false}}]}],
    });
    std::fs::write(&file, doc.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let offered = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["expand", "--registry", file];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        ["array", "catalog"]
            .iter()
            .flat_map(|k| v[k].as_array().unwrap().clone())
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    for trust in [&[][..], &["--trust", "unrelated"][..]] {
        let read_only = [trust, &["--override", r#"{"toolset":"readonly"}"#]].concat();
        let names = offered(&read_only);
        assert!(names.contains(&"note".to_string()), "{names:?}");
        assert!(
            !names.contains(&"mcp__evil__rm_rf".to_string()),
            "{trust:?}: {names:?}"
        );
        let kiosk = [
            trust,
            &["--source", "kiosk", "--override", r#"{"enabled":true}"#],
        ]
        .concat();
        let names = offered(&kiosk);
        assert!(
            !names.contains(&"mcp__evil__rm_rf".to_string()),
            "{trust:?}: {names:?}"
        );
    }
    // Trusting the server by name believes it.
    let names = offered(&["--trust", "evil", "--override", r#"{"toolset":"readonly"}"#]);
    assert!(names.contains(&"mcp__evil__rm_rf".to_string()), "{names:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// An error about `--tool-changes` names that flag, in `expand` and in `cache-report` (it
/// blamed `--override` and `--script`).
#[test]
fn a_tool_changes_error_names_its_flag() {
    let o = run(&[
        "expand",
        "--provider",
        "gemini",
        "--tool-changes",
        "messages",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--tool-changes: invalid tool_changes"),
        "{}",
        stderr(&o)
    );
    let script = r#"{"turns":[{}]}"#;
    let o = run(&[
        "cache-report",
        "--provider",
        "gemini",
        "--tool-changes",
        "messages",
        "--script",
        script,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--tool-changes: invalid tool_changes"),
        "{}",
        stderr(&o)
    );
}

/// Output that cannot be written is an error (exit 2, `[io]`), not a cut payload behind an
/// exit status of 0; a reader that stops early (`| head`) is not.
#[test]
fn output_that_cannot_be_written_is_an_error_but_a_closed_pipe_is_not() {
    // Linux's always-full device: every write fails with ENOSPC.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full (Linux) is the fixture of this test");
    let o = Command::new(env!("CARGO_BIN_EXE_tool-intent"))
        .arg("payload")
        .stdout(full)
        .output()
        .expect("run tool-intent");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("error [io]: writing the output"), "{err}");
    // A pipe whose reader is gone: with every session server declared the payload is larger
    // than a pipe's buffer (64 KiB), so a write meets the closed end whenever it closes.
    let mut args = vec!["payload".to_string(), "--mode".into(), "native".into()];
    for s in SESSION_SERVERS {
        args.push("--mcp".into());
        args.push(format!("{s}={}", fixture(s)));
    }
    let full_size = run(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .stdout
        .len();
    assert!(full_size > 64 * 1024, "{full_size} bytes");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-intent"))
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tool-intent");
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// `--loaded a, b` is `--loaded a,b`: tool names hold no spaces, so the ones around a comma
/// are the writer's, not part of a name.
#[test]
fn loaded_names_may_have_spaces_around_their_commas() {
    let plan = |loaded: &str| -> serde_json::Value {
        let o = run(&["expand", "--loaded", loaded]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let spaced = plan(" send_message , playwright_browser ");
    assert_eq!(
        spaced["promoted"],
        serde_json::json!(["send_message", "playwright_browser"])
    );
    assert_eq!(spaced["warnings"], serde_json::json!([]));
    assert_eq!(spaced, plan("send_message,playwright_browser"));
}
