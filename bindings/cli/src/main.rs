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
mod choices;
#[cfg(not(target_arch = "wasm32"))]
mod columns;
#[cfg(not(target_arch = "wasm32"))]
mod input;
#[cfg(not(target_arch = "wasm32"))]
mod load;
#[cfg(not(target_arch = "wasm32"))]
mod sessions;
#[cfg(not(target_arch = "wasm32"))]
mod store;
#[cfg(not(target_arch = "wasm32"))]
mod tables;

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use super::args::{Cli, Command};
    use super::choices::CacheModeArg;
    use super::input::{inline_or_file, one_line, pretty, turn_flag, warn, CliError, Flag};
    use super::load::{load_registry, load_registry_at, request, session_request, with_model};
    use super::{sessions, store, tables};

    use std::io::Write;

    use clap::Parser;
    use serde_json::json;
    use tool_intent::cache_report::CacheScript;
    use tool_intent::counter::shared_counter;
    use tool_intent::{
        build_intent, DeferralMode, SearchCall, SessionRunConfig, Toggles, ToolsOverride,
    };

    pub fn run() -> i32 {
        let cli = match Cli::try_parse() {
            Ok(cli) => cli,
            Err(e) => {
                let code = if e.use_stderr() { 2 } else { 0 };
                let _ = e.print();
                return code;
            }
        };
        let (out, status) = match execute(cli.command) {
            Ok(out) => (out, 0),
            // A report that found something (`check`): printed, and the status says so.
            Err(CliError::Findings(out)) => (out, 1),
            Err(e) => {
                eprintln!("tool-intent: {}", one_line(&e.to_string()));
                return 2;
            }
        };
        match write_out(&out) {
            Ok(()) => status,
            Err(e) => {
                eprintln!("tool-intent: {}", one_line(&e.to_string()));
                2
            }
        }
    }

    /// Writes the output. A reader that stopped early (`| head`) is no failure; any other
    /// write error is (a full disk must not leave a cut payload behind an exit status of 0).
    fn write_out(out: &str) -> Result<(), CliError> {
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(CliError::Io(format!("writing the output: {e}")))
            }
            _ => Ok(()),
        }
    }

    fn execute(command: Command) -> Result<String, CliError> {
        match command {
            Command::Expand(args) => {
                let req = request(&args)?;
                let registry = load_registry_at(&args.registry, req.state.registry.as_deref())?;
                let p = turn_flag(registry.plan_turn(&req), "--override")?;
                pretty(&p)
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
                            serde_json::to_string(state).map_err(|e| CliError::In(
                                "output".to_string(),
                                tool_intent::Error::internal(format!(
                                    "serde_json refused the turn state: {e}"
                                ))
                            ))?
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
                words,
                limit,
                ranker,
                model,
                abstain,
                json,
            } => {
                // The group `search_query` requires one of the two and refuses both.
                let query = query.unwrap_or_else(|| words.join(" "));
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
                    pretty(&value)?
                } else {
                    // The model's text as it is, ended for a terminal: "No deferred tool
                    // matched." has no newline of its own.
                    let mut text = outcome.result.text;
                    if !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text
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
                let script = CacheScript::from_json_str(&inline_or_file(&script, "--script")?)
                    .flag("--script")?;
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
                    pretty(&reports)?
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
                    pretty(&report)?
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
                let o =
                    ToolsOverride::from_json_str(&inline_or_file(&tools_override, "--override")?)
                        .flag("--override")?;
                // The canonical form keeps a key this version does not know (a newer writer's);
                // say so, as a turn would, rather than print it as if it took effect.
                if let ToolsOverride::Intent(intent) = &o {
                    let mut warnings = Vec::new();
                    intent.unknown_key_warnings("override", &mut warnings);
                    warn(&warnings);
                }
                Ok(format!("{}\n", o.to_canonical_json()))
            }
            Command::BuildIntent { toggles } => {
                let toggles = Toggles::from_json_str(&inline_or_file(&toggles, "--toggles")?)
                    .flag("--toggles")?;
                let intent = build_intent(&toggles);
                let row = SessionRunConfig::from_override(&intent);
                pretty(&json!({"intent": intent.to_canonical_value(), "row": row.to_value()}))
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
                Ok(if json {
                    pretty(&b)?
                } else {
                    tables::budget(&b)
                })
            }
            Command::Registry(command) => store::command(command),
            Command::Migrate(args) => sessions::migrate(args),
            Command::Audit {
                sessions: table_args,
                registry,
                json,
            } => sessions::audit(&table_args, &registry, json),
        }
    }
}
