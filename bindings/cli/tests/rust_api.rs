//! The Rust column of the API table (`tests/data/api.json`, shown in docs/surfaces.md) is
//! code: every form it names is compiled and run here, written as the table writes it, and
//! the table names exactly the forms run here. A call whose shape changes fails to compile
//! here, and a table that still shows the old shape fails the comparison. (In the CLI's tests
//! because this crate depends on the core, the migration crate and the store crate alike.)

#![cfg(not(target_arch = "wasm32"))]

use std::cell::RefCell;

use tool_intent::cache_report::CacheScript;
use tool_intent::{
    build_intent, counter, fingerprint, record_loaded, session, CounterKind, Provider, Registry,
    SearchCall, SessionRunConfig, Toggles, ToolsOverride, TurnRequest, TurnState,
};
use tool_intent_migrate::{AuditOptions, Database, MigrateOptions};
use tool_intent_store::{Retention, SharedRegistry};

thread_local! {
    /// The forms evaluated, as `stringify!` writes them.
    static RUN: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Evaluates a form of the table and records it as written.
macro_rules! form {
    ($e:expr) => {{
        RUN.with(|run| run.borrow_mut().push(stringify!($e).to_string()));
        $e
    }};
}

/// `stringify!` spaces some tokens differently from the table (`& [` for `&[`): both sides
/// are compared without spaces.
fn compact(form: &str) -> String {
    form.chars().filter(|c| !c.is_whitespace()).collect()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tool-intent-rust-api-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn registry_and_turn_forms() -> tool_intent::Result<()> {
    let github = include_str!("../../../tests/data/mcp/github.json");
    let text = &Registry::embedded().to_json();
    let r = form!(Registry::embedded());
    let r2 = form!(Registry::from_json_str(text))?;
    assert_eq!(r2.fingerprint(), r.fingerprint());
    let (server, tools_list) = ("github", github);
    let changed = form!(r.set_mcp_server(server, tools_list))?;
    let (name, text) = ("github", github);
    let both = form!(r.set_mcp_servers(&[(name, text)]))?;
    assert_eq!(both.registry.fingerprint(), changed.registry.fingerprint());
    let server = "github";
    let r = changed.registry;
    let gone = form!(r.remove_mcp_server(server))?;
    assert_eq!(gone.registry.len(), Registry::embedded().len());
    #[cfg(feature = "model")]
    {
        use tool_intent::search::ModelRanker;
        // Not a model's weights: the form runs and says so.
        let bytes: &[u8] = b"not safetensors";
        let r = r.clone();
        let with_model = || -> tool_intent::Result<Registry> {
            Ok(form!(r.with_model(ModelRanker::from_safetensors(bytes)?)))
        };
        assert!(with_model().is_err());
    }
    let request = TurnRequest {
        tools_override: ToolsOverride::from_json_str(r#"{"toolset":"full"}"#)?,
        ..Default::default()
    };
    let mut turn = form!(r.turn(&request))?;
    let plan = form!(turn.plan())?;
    assert_eq!(form!(r.plan_turn(&request))?.fingerprint, plan.fingerprint);
    let query = "select:mcp__github__create_issue";
    let outcome = form!(turn.search(&SearchCall::new(query)))?;
    assert_eq!(outcome.result.hits.len(), 1);
    let name = "mcp__github__create_issue";
    form!(turn.resolve(name))?;
    let counter = counter::shared_counter(CounterKind::Estimate)?;
    form!(turn.budget(counter))?;
    let state = form!(turn.state()).clone();
    form!(turn.warnings());
    let script = CacheScript::from_json_str(r#"{"turns": [{}, {"searches": ["select:memory"]}]}"#)?;
    form!(r.cache_report(&script, &request, counter))?;
    let provider = Provider::Anthropic;
    form!(r.check(provider));
    form!(r.tool_infos());
    form!(r.tool_definition(name))?;
    form!(r.toolset_names()).for_each(drop);
    form!(r.source_names()).for_each(drop);
    form!(r.to_json());
    form!(r.warnings());
    assert!(form!(r.len()) > 0 && !form!(r.is_empty()));
    let next = form!(r.begin_turn(&state));
    let names: &[&str] = &["read_file"];
    form!(record_loaded(&state, names))?;
    assert!(form!(r.fingerprint()).starts_with("sha256:"));
    let toggles = Toggles::from_json_str(r#"{"web_search": true}"#)?;
    let o = form!(build_intent(&toggles));
    form!(o.to_canonical_json());
    let v = serde_json::json!(["read_file"]);
    form!(session::normalize_tools_value(&v))?;
    let row = form!(SessionRunConfig::from_override(&o)).to_value();
    assert_eq!(form!(SessionRunConfig::from_value(&row)?.to_override()), o);
    let bytes = next.registry.as_deref().unwrap_or("").as_bytes();
    assert!(form!(fingerprint(bytes)).starts_with("sha256:"));
    let (kind, text) = (CounterKind::Estimate, "some text");
    assert!(form!(counter::shared_counter(kind)?.count(text)) > 0);
    Ok(())
}

fn migration_forms() -> tool_intent::Result<()> {
    let dir = temp("migrate");
    let path = dir.join("sessions.db");
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE sessions (tools_enabled INTEGER, tools_override TEXT);
             INSERT INTO sessions VALUES (NULL, '[\"grep\"]');",
        )
        .unwrap();
    let db = Database::parse(path.to_str().unwrap())?;
    let registry = Registry::embedded();
    let options = AuditOptions::default();
    assert!(form!(tool_intent_migrate::audit(&db, &registry, &options))?.is_empty());
    let options = MigrateOptions::default();
    let report = form!(tool_intent_migrate::migrate(&db, &registry, options))?;
    assert_eq!(report.hand_picks_kept, 1);
    let options = MigrateOptions::default();
    form!(tool_intent_migrate::undo(&db, options))?;
    std::fs::remove_dir_all(&dir).unwrap();
    Ok(())
}

fn store_forms() -> tool_intent::Result<()> {
    let dir = temp("store");
    let store = &dir.join("fleet.db").display().to_string();
    let initial = Registry::embedded();
    let mut shared = form!(SharedRegistry::open(
        tool_intent_store::open(store)?,
        &initial
    ))?;
    let state = TurnState::default();
    let state = form!(shared.begin_turn(&state))?;
    let request = TurnRequest {
        state,
        ..Default::default()
    };
    form!(shared.turn(&request))?;
    let github = include_str!("../../../tests/data/mcp/github.json");
    let registry = initial.set_mcp_server("github", github)?.registry;
    form!(shared.publish(&registry))?;
    let f = |r: &Registry| Ok(r.remove_mcp_server("github")?.registry);
    form!(shared.change(f))?;
    form!(shared.follow())?;
    assert_eq!(form!(shared.store().versions())?.len(), 3);
    let (retention, now_ms, in_use) = (Retention::default(), tool_intent_store::now_ms(), &[]);
    form!(shared.store().gc(&retention, now_ms, in_use))?;
    assert_eq!(form!(shared.sequence()), 3);
    assert_eq!(form!(shared.current()).fingerprint(), initial.fingerprint());
    #[cfg(feature = "model")]
    {
        // Not a model's weights: the form runs and says so.
        let bytes: &[u8] = b"not safetensors";
        let mut with_model = || -> tool_intent::Result<()> {
            form!(shared.with_model(bytes)?);
            Ok(())
        };
        assert!(with_model().is_err());
    }
    std::fs::remove_dir_all(&dir).unwrap();
    Ok(())
}

#[test]
fn every_rust_form_of_the_api_table_compiles_runs_and_is_listed() {
    registry_and_turn_forms().unwrap();
    migration_forms().unwrap();
    store_forms().unwrap();
    let run: std::collections::BTreeSet<String> =
        RUN.with(|run| run.borrow().iter().map(|f| compact(f)).collect());
    let api: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/data/api.json")).unwrap();
    let listed: std::collections::BTreeSet<String> = api["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|call| call["rust"].as_str())
        .map(compact)
        .collect();
    let unlisted: Vec<&String> = run.difference(&listed).collect();
    let not_run: Vec<&String> = listed.difference(&run).collect();
    // Without the model feature its forms are listed but not compiled.
    let not_run: Vec<&String> = not_run
        .into_iter()
        .filter(|f| cfg!(feature = "model") || !f.contains("with_model"))
        .collect();
    assert!(
        not_run.is_empty(),
        "forms the API table shows that no code here runs: {not_run:?}"
    );
    assert!(
        unlisted.is_empty(),
        "forms run here that the API table does not show: {unlisted:?}"
    );
}
