//! `tool-intent`: the native command-line adapter. It parses flags, reads files, calls the
//! library and prints; every decision is made in the library.
//!
//! Bad input (malformed JSON, wrong types, unknown source) exits 2 with one line on stderr
//! that names the offending path, and nothing on stdout.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::run());
}

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod store;
#[cfg(not(target_arch = "wasm32"))]
mod tables;

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::args::{
        CacheModeArg, Cli, Command, RegistryArgs, RegistryCommand, RequestArgs, SessionArgs,
        SessionTableArgs,
    };
    use super::{store, tables};

    use std::io::{IsTerminal, Write};
    use std::path::PathBuf;

    use clap::Parser;
    use serde_json::json;
    use tool_intent::cache_report::CacheScript;
    use tool_intent::counter::shared_counter;
    use tool_intent::{
        build_intent, record_loaded, DeferralMode, Error, Provider, Registry, SearchCall,
        SessionRunConfig, Toggles, ToolsOverride, TurnRequest, TurnState, View,
    };
    use tool_intent_migrate as migrate;

    pub fn run() -> i32 {
        let cli = match Cli::try_parse() {
            Ok(cli) => cli,
            Err(e) => {
                let code = if e.use_stderr() { 2 } else { 0 };
                let _ = e.print();
                return code;
            }
        };
        match execute(cli.command) {
            Ok(out) => {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(out.as_bytes());
                let _ = stdout.flush();
                0
            }
            Err(CliError::Findings(out)) => {
                // A report that found something (`check`): printed, and the status says so.
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(out.as_bytes());
                let _ = stdout.flush();
                1
            }
            Err(e) => {
                eprintln!("tool-intent: {}", one_line(&e.to_string()));
                2
            }
        }
    }

    /// Errors of the CLI: a library error about one flag (named first), or I/O.
    enum CliError {
        /// A library error; `.0` names the flag or file it came from.
        In(String, Error),
        Io(String),
        /// Not an error: a report whose findings make the exit status 1.
        Findings(String),
    }

    impl std::fmt::Display for CliError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                CliError::In(place, e) => write!(f, "error [{}]: {place}: {e}", e.code()),
                CliError::Io(m) => write!(f, "error [io]: {m}"),
                CliError::Findings(report) => f.write_str(report),
            }
        }
    }

    fn one_line(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// A file's text, read up to the input limit whatever the file is: a regular file, a
    /// pipe, `/dev/stdin` or a device (whose `stat` size says nothing, so the limit is on the
    /// bytes read: `/dev/zero` stops after 64 MiB with this error, not at the memory's end).
    fn read_file(path: &PathBuf) -> Result<String, CliError> {
        use std::io::Read;
        let limit = tool_intent::limits::LIMITS.max_input_bytes;
        let too_large = |size: String| {
            CliError::Io(format!(
                "{}: {size} bytes, larger than the {limit}-byte input limit",
                path.display()
            ))
        };
        let cannot =
            |e: std::io::Error| CliError::Io(format!("cannot read {}: {e}", path.display()));
        let file = std::fs::File::open(path).map_err(cannot)?;
        // A regular file larger than the limit costs a `stat`, not a read.
        if let Ok(meta) = file.metadata() {
            if meta.is_file() && meta.len() > limit as u64 {
                return Err(too_large(meta.len().to_string()));
            }
        }
        let mut bytes = Vec::new();
        file.take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        if bytes.len() > limit {
            return Err(too_large(format!("more than {limit}")));
        }
        String::from_utf8(bytes).map_err(|e| {
            CliError::Io(format!(
                "cannot read {}: not UTF-8 text (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// JSON given inline or as @FILE.
    fn inline_or_file(text: &str) -> Result<String, CliError> {
        match text.strip_prefix('@') {
            Some(path) => read_file(&PathBuf::from(path)),
            None => Ok(text.to_string()),
        }
    }

    /// Attaches the flag a library call was made for to its error.
    trait Flag<T> {
        fn flag(self, flag: &str) -> Result<T, CliError>;
    }

    impl<T> Flag<T> for Result<T, Error> {
        fn flag(self, flag: &str) -> Result<T, CliError> {
            self.map_err(|e| CliError::In(flag.to_string(), e))
        }
    }

    /// Warnings on stderr, one line each.
    fn warn(warnings: &[tool_intent::Warning]) {
        for w in warnings {
            eprintln!(
                "tool-intent: warning [{}]: {}",
                w.code.as_str(),
                one_line(&w.message)
            );
        }
    }

    /// A per-turn call's error, blamed on the flag of the input it is about (`--mode`,
    /// `--provider`, `--source`, `--query`, `--limit`, ...); `fallback` when the error names no
    /// input of its own.
    fn turn_flag<T>(r: Result<T, Error>, fallback: &str) -> Result<T, CliError> {
        r.map_err(|e| {
            let flag = match (e.input(), e.path()) {
                (Some("mode"), _) => "--mode",
                (Some("provider"), _) => "--provider",
                (Some("source"), _) => "--source",
                (Some("state"), _) => "--state",
                (Some("profile"), _) => "--profile",
                (Some("view"), _) => "--view",
                (Some("tool_changes"), _) => "--tool-changes",
                (Some("cache_control"), _) => "--cache-control",
                (Some("tools_override"), _) => "--override",
                (Some("tool_search arguments"), Some("$.limit")) | (Some("limit"), _) => "--limit",
                (Some("tool_search arguments" | "tool_search query"), _) => "--query",
                _ => fallback,
            };
            CliError::In(flag.to_string(), e)
        })
    }

    /// The registry with `--model`'s weights attached (for `--ranker model`).
    fn with_model(
        registry: Registry,
        model: Option<&std::path::Path>,
    ) -> Result<Registry, CliError> {
        let Some(path) = model else {
            return Ok(registry);
        };
        let flag = format!("--model {}", path.display());
        #[cfg(feature = "model")]
        {
            let bytes = std::fs::read(path).map_err(|e| CliError::Io(format!("{flag}: {e}")))?;
            let model = tool_intent::search::ModelRanker::from_safetensors(&bytes).flag(&flag)?;
            Ok(registry.with_model(model))
        }
        #[cfg(not(feature = "model"))]
        {
            let _ = registry;
            Err(CliError::In(
                flag,
                Error::InvalidArgument {
                    argument: "model",
                    path: None,
                    message: "the model ranker is not in this build (cargo feature model)".into(),
                },
            ))
        }
    }

    /// The registry a command works on: with `--store`, the store's newest version (holding
    /// the version `stamp` names, for a turn that began on it); otherwise the one the local
    /// flags build.
    fn load_registry_at(args: &RegistryArgs, stamp: Option<&str>) -> Result<Registry, CliError> {
        let Some(spec) = &args.store else {
            return local_registry(args);
        };
        if args.registry.is_some() || !args.mcp.is_empty() || !args.trust.is_empty() {
            eprintln!(
                "tool-intent: note: planning on the version published in --store; --registry, --mcp and --trust build only what `registry publish` publishes"
            );
        }
        store::published(spec, stamp).flag("--store")
    }

    fn load_registry(args: &RegistryArgs) -> Result<Registry, CliError> {
        load_registry_at(args, None)
    }

    /// The registry the local flags build (`--registry`, `--trust`, `--mcp`).
    fn local_registry(args: &RegistryArgs) -> Result<Registry, CliError> {
        let mut registry = match &args.registry {
            None => Registry::embedded(),
            Some(path) => Registry::from_json_str(&read_file(path)?)
                .flag(&format!("--registry {}", path.display()))?,
        };
        if !args.trust.is_empty() {
            // Trust is registry data: the document gains the servers, and loads again.
            let mut doc = registry.to_value();
            let mut trusted: Vec<serde_json::Value> = doc["trusted_servers"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            trusted.extend(
                args.trust
                    .iter()
                    .map(|s| serde_json::Value::from(s.as_str())),
            );
            doc["trusted_servers"] = serde_json::Value::Array(trusted);
            registry = Registry::from_value(&doc).flag("--trust")?;
        }
        // Every `--mcp` in one build (a registry per server would rebuild it each time).
        let mut servers: Vec<(&str, &str, String)> = Vec::with_capacity(args.mcp.len());
        for spec in &args.mcp {
            let (name, file) = spec
                .split_once('=')
                .ok_or_else(|| CliError::Io(format!("--mcp {spec:?}: expected NAME=FILE")))?;
            servers.push((name, file, read_file(&PathBuf::from(file))?));
        }
        if !servers.is_empty() {
            let pairs: Vec<(&str, &str)> =
                servers.iter().map(|(n, _, t)| (*n, t.as_str())).collect();
            registry = match registry.set_mcp_servers(&pairs) {
                Ok(change) => change.registry,
                Err(e) => {
                    // The first `--mcp` that fails alone is the one at fault, and its own
                    // error is rooted at its file (`$.tools[0]`, not `$[k].tools.tools[0]`;
                    // an invalid_json error carries no `$[k]` at all). An error about the
                    // list of servers (a name given twice) fails no server alone.
                    for (name, file, text) in &servers {
                        if let Err(alone) = registry.set_mcp_server(name, text) {
                            return Err(alone).flag(&format!("--mcp {name}={file}"));
                        }
                    }
                    let (name, file) = servers
                        .iter()
                        .rev()
                        .find(|(n, _, _)| e.to_string().contains(&format!("\"{n}\"")))
                        .map_or(("", ""), |(n, f, _)| (*n, *f));
                    return Err(e).flag(&format!("--mcp {name}={file}"));
                }
            };
        }
        // What loading left out or changed is said once, on stderr (stdout stays the output).
        // A path into the k-th `--mcp` list (`$[k].tools...`) is given rooted at its file.
        for w in registry.warnings() {
            let mut message = one_line(&w.message);
            for (k, (name, file, _)) in servers.iter().enumerate() {
                let inside = format!("$[{k}].tools");
                if message.contains(&inside) {
                    message = format!("--mcp {name}={file}: {}", message.replace(&inside, "$"));
                }
            }
            eprintln!("tool-intent: warning [{}]: {message}", w.code.as_str());
        }
        Ok(registry)
    }

    fn request(args: &RequestArgs) -> Result<TurnRequest, CliError> {
        session_request(
            &args.session,
            args.provider.provider(),
            args.mode.mode(),
            args.cache_control,
        )
    }

    fn session_request(
        args: &SessionArgs,
        provider: Provider,
        mode: DeferralMode,
        cache_control: bool,
    ) -> Result<TurnRequest, CliError> {
        let tools_override = match &args.tools_override {
            Some(text) => {
                ToolsOverride::from_json_str(&inline_or_file(text)?).flag("--override")?
            }
            None => ToolsOverride::Follow,
        };
        let profile = match &args.profile {
            Some(text) => {
                Some(ToolsOverride::from_json_str(&inline_or_file(text)?).flag("--profile")?)
            }
            None => None,
        };
        let mut state = match &args.state {
            Some(text) => TurnState::from_json_str(&inline_or_file(text)?).flag("--state")?,
            None => TurnState::default(),
        };
        // `--loaded a,b`: tools loaded earlier, promoted as at a turn boundary (shorthand for
        // a `--state` that records them and begins a turn).
        let loaded: Vec<&String> = args.loaded.iter().filter(|s| !s.is_empty()).collect();
        if !loaded.is_empty() {
            let recorded = record_loaded(&state, &loaded).flag("--loaded")?;
            state = TurnState {
                frozen: recorded.loaded.clone(),
                loaded: recorded.loaded,
                turn: recorded.turn + 1,
                registry: None,
                conversation: state.conversation.clone(),
            };
        }
        Ok(TurnRequest {
            tools_override,
            profile,
            source: args.source.clone(),
            state,
            provider,
            mode,
            tool_changes: args.tool_changes.tool_changes(),
            cache_control,
            view: View::Frozen,
        })
    }

    fn pretty(v: &impl serde::Serialize) -> String {
        let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string());
        s.push('\n');
        s
    }

    fn registry_command(command: RegistryCommand) -> Result<String, CliError> {
        match command {
            RegistryCommand::Publish { registry, json } => {
                let Some(spec) = registry.store.clone() else {
                    return Err(CliError::Io(
                        "registry publish: --store is required (a SQLite file or a postgres:// URL)"
                            .into(),
                    ));
                };
                let local = local_registry(&registry)?;
                let (row, new) = store::publish(&spec, &local).flag("--store")?;
                Ok(if json {
                    pretty(&json!({"published": new, "version": row}))
                } else {
                    format!(
                        "{} {} (sequence {}, {} tools)\n",
                        if new { "published" } else { "already newest:" },
                        row.fingerprint,
                        row.sequence,
                        row.tools
                    )
                })
            }
            RegistryCommand::Versions { store: spec, json } => {
                let rows = store::versions(&spec).flag("--store")?;
                Ok(if json {
                    pretty(&rows)
                } else {
                    store::versions_table(&rows)
                })
            }
            RegistryCommand::Gc {
                store: spec,
                keep_newest,
                keep_hours,
                json,
            } => {
                if !(keep_hours.is_finite() && keep_hours >= 0.0) {
                    return Err(CliError::Io(format!(
                        "--keep-hours {keep_hours}: expected a number of hours, 0 or more"
                    )));
                }
                let retention = tool_intent_store::Retention {
                    keep_newest,
                    keep_for_ms: (keep_hours * 3_600_000.0) as i64,
                };
                let report = store::gc(&spec, &retention).flag("--store")?;
                Ok(if json {
                    pretty(&report)
                } else {
                    format!(
                        "removed {} version(s), {} tool(s); {} version(s) held\n",
                        report.removed.len(),
                        report.tools_removed,
                        report.kept
                    )
                })
            }
        }
    }

    fn execute(command: Command) -> Result<String, CliError> {
        match command {
            Command::Expand(args) => {
                let req = request(&args)?;
                let registry = load_registry_at(&args.registry, req.state.registry.as_deref())?;
                let p = turn_flag(registry.plan_turn(&req), "--override")?;
                Ok(pretty(&p))
            }
            Command::Preview {
                request: args,
                counter,
            } => {
                let req = request(&args)?;
                let registry = load_registry_at(&args.registry, req.state.registry.as_deref())?;
                let p = turn_flag(registry.plan_turn(&req), "--override")?;
                let counter = shared_counter(counter.kind()).flag("--counter")?;
                let b = turn_flag(
                    registry.turn(&req).and_then(|turn| turn.budget(counter)),
                    "--override",
                )?;
                Ok(tables::preview(&registry, &req, &p, &b))
            }
            Command::Payload {
                request: args,
                catalog,
                request_fields,
                changes,
            } => {
                let req = request(&args)?;
                let registry = load_registry_at(&args.registry, req.state.registry.as_deref())?;
                let p = turn_flag(registry.plan_turn(&req), "--override")?;
                // stdout carries the exact bytes only; the warnings go to stderr, as every
                // other surface reports them beside the payload.
                warn(&p.warnings);
                Ok(if catalog {
                    p.catalog_text
                } else if changes {
                    if let Some(state) = &p.state {
                        eprintln!(
                            "{}",
                            serde_json::to_string(state).unwrap_or_else(|_| "null".to_string())
                        );
                    }
                    if p.changes.is_empty() {
                        "[]".to_string()
                    } else {
                        p.changes
                    }
                } else if request_fields {
                    if p.request_fields.is_empty() {
                        "{}".to_string()
                    } else {
                        p.request_fields
                    }
                } else {
                    p.payload
                })
            }
            Command::Search {
                request: args,
                query,
                limit,
                ranker,
                model,
                abstain,
                json,
            } => {
                let req = request(&args)?;
                let registry = with_model(
                    load_registry_at(&args.registry, req.state.registry.as_deref())?,
                    model.as_deref(),
                )?;
                let ranker = ranker.kind().ranker_for(&registry).flag("--ranker")?;
                let mut call = SearchCall::new(&query)
                    .with_ranker(ranker.as_ranker())
                    .with_abstain(abstain);
                // No limit given: the library's default, decided in one place.
                if let Some(limit) = limit {
                    call = call.with_limit(limit);
                }
                let outcome = turn_flag(
                    registry.turn(&req).and_then(|mut turn| turn.search(&call)),
                    "--query",
                )?;
                Ok(if json {
                    let text = outcome
                        .to_json()
                        .map_err(|e| CliError::In("search output".into(), e))?;
                    let value: serde_json::Value = serde_json::from_str(&text)
                        .map_err(|e| CliError::Io(format!("search output: {e}")))?;
                    pretty(&value)
                } else {
                    outcome.result.text
                })
            }
            Command::CacheReport {
                registry,
                session,
                script,
                provider,
                mode,
                cache_control,
                counter,
                json,
            } => {
                let registry = load_registry(&registry)?;
                let script =
                    CacheScript::from_json_str(&inline_or_file(&script)?).flag("--script")?;
                let provider = provider.provider();
                // "all": catalog (which reports any error of the options), and each mode the
                // provider takes with these tool changes (the library's own rule).
                let tool_changes = session.tool_changes.tool_changes();
                let modes = match mode {
                    CacheModeArg::All => DeferralMode::ALL
                        .into_iter()
                        .filter(|&m| {
                            m == DeferralMode::Catalog
                                || if tool_changes.is_messages() {
                                    tool_intent::turn::tool_changes::check(
                                        provider,
                                        m,
                                        tool_changes,
                                    )
                                    .is_ok()
                                } else {
                                    provider.has_native_deferral()
                                }
                        })
                        .collect(),
                    CacheModeArg::Catalog => vec![DeferralMode::Catalog],
                    CacheModeArg::Native => vec![DeferralMode::Native],
                    CacheModeArg::NativeClient => vec![DeferralMode::NativeClient],
                };
                let counter = shared_counter(counter.kind()).flag("--counter")?;
                let mut reports = Vec::with_capacity(modes.len());
                for mode in modes {
                    let base = session_request(&session, provider, mode, cache_control)?;
                    // An error about an option is that option's flag's; the rest the script's.
                    reports.push(turn_flag(
                        registry.cache_report(&script, &base, counter),
                        "--script",
                    )?);
                }
                Ok(if json {
                    pretty(&reports)
                } else {
                    tables::cache_report(&reports)
                })
            }
            Command::Check {
                registry,
                provider,
                json,
            } => {
                let registry = load_registry(&registry)?;
                let report = registry.check(provider.provider());
                let out = if json {
                    pretty(&report)
                } else {
                    tables::check(&report)
                };
                if report.is_clean() {
                    Ok(out)
                } else {
                    Err(CliError::Findings(out))
                }
            }
            Command::Canonical { tools_override } => {
                let o = ToolsOverride::from_json_str(&inline_or_file(&tools_override)?)
                    .flag("--override")?;
                Ok(format!("{}\n", o.to_canonical_json()))
            }
            Command::BuildIntent { toggles } => {
                let toggles =
                    Toggles::from_json_str(&inline_or_file(&toggles)?).flag("--toggles")?;
                let intent = build_intent(&toggles);
                let row = SessionRunConfig::from_override(&intent);
                Ok(pretty(
                    &json!({"intent": intent.to_canonical_value(), "row": row.to_value()}),
                ))
            }
            Command::Budget {
                request: args,
                counter,
                json,
            } => {
                let req = request(&args)?;
                let registry = load_registry_at(&args.registry, req.state.registry.as_deref())?;
                let counter = shared_counter(counter.kind()).flag("--counter")?;
                let b = turn_flag(
                    registry.turn(&req).and_then(|turn| turn.budget(counter)),
                    "--override",
                )?;
                Ok(if json { pretty(&b) } else { tables::budget(&b) })
            }
            Command::Registry(command) => registry_command(command),
            Command::Migrate(args) => {
                let registry = load_registry(&args.registry)?;
                let progress = std::io::stderr().is_terminal()
                    || std::env::var_os("TOOL_INTENT_PROGRESS").is_some();
                let started = std::time::Instant::now();
                let mut on_progress = |done: u64, total: u64| {
                    if progress {
                        let secs = started.elapsed().as_secs_f64().max(1e-3);
                        let rate = done as f64 / secs;
                        let eta = (total.saturating_sub(done)) as f64 / rate.max(1e-9);
                        eprint!(
                            "\rmigrate: {done}/{total} rows, {rate:.0} rows/s, ETA {eta:.0} s   "
                        );
                        if done == total {
                            eprintln!();
                        }
                    }
                };
                let SessionTableArgs { db: spec, table } = &args.sessions;
                let database = migrate::Database::parse(spec);
                let db = format!("--db {}", database.describe());
                let options = migrate::MigrateOptions {
                    table: table.clone(),
                    dry_run: args.dry_run,
                    batch_size: args.batch_size,
                };
                let report = if args.undo {
                    migrate::undo(&database, &options).flag(&db)?
                } else {
                    migrate::migrate(&database, &registry, &options, &mut on_progress).flag(&db)?
                };
                Ok(if args.json {
                    pretty(&report)
                } else {
                    report.to_text()
                })
            }
            Command::Audit {
                sessions: SessionTableArgs { db, table },
                registry,
                json,
            } => {
                let registry = load_registry(&registry)?;
                let database = migrate::Database::parse(&db);
                let rows = migrate::audit(&database, &table, &registry)
                    .flag(&format!("--db {}", database.describe()))?;
                if json {
                    return Ok(pretty(&rows));
                }
                let mut out = String::new();
                if rows.is_empty() {
                    out.push_str(&format!(
                        "audit: no row of {table} holds a legacy snapshot\n"
                    ));
                }
                for r in &rows {
                    out.push_str(&format!(
                        "row {}: snapshot of {} -> {}\n",
                        r.rowid, r.matched, r.intent
                    ));
                }
                if !rows.is_empty() {
                    out.push_str(&format!("audit: {} row(s) still hold legacy snapshots; run `tool-intent migrate --db ...`\n", rows.len()));
                }
                Ok(out)
            }
        }
    }
}
