//! What a command works on, from its flags: the registry (local flags, or a store with
//! `--store`; the model's weights for `--ranker model`) and the turn request.

use super::args::{RegistryArgs, RequestArgs, SessionArgs};
use super::input::{inline_or_file, one_line, read_file, CliError, Flag};
use super::store;

use std::path::PathBuf;

use tool_intent::{
    record_loaded, DeferralMode, Provider, Registry, ToolsOverride, TurnRequest, TurnState, View,
};

/// The registry with `--model`'s weights attached (for `--ranker model`).
pub(crate) fn with_model(
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
            tool_intent::Error::InvalidArgument {
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
pub(crate) fn load_registry_at(
    args: &RegistryArgs,
    stamp: Option<&str>,
) -> Result<Registry, CliError> {
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

pub(crate) fn load_registry(args: &RegistryArgs) -> Result<Registry, CliError> {
    load_registry_at(args, None)
}

/// The registry the local flags build (`--registry`, `--trust`, `--mcp`).
pub(crate) fn local_registry(args: &RegistryArgs) -> Result<Registry, CliError> {
    let mut registry = match &args.registry {
        None => Registry::embedded(),
        Some(path) => Registry::from_json_str(&read_file(path, "--registry")?)
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
            .ok_or_else(|| CliError::Usage(format!("--mcp {spec:?}: expected NAME=FILE")))?;
        servers.push((name, file, read_file(&PathBuf::from(file), "--mcp")?));
    }
    if !servers.is_empty() {
        let pairs: Vec<(&str, &str)> = servers.iter().map(|(n, _, t)| (*n, t.as_str())).collect();
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

pub(crate) fn request(args: &RequestArgs) -> Result<TurnRequest, CliError> {
    session_request(
        &args.session,
        args.provider.provider(),
        args.mode.mode(),
        args.cache_control,
    )
}

pub(crate) fn session_request(
    args: &SessionArgs,
    provider: Provider,
    mode: DeferralMode,
    cache_control: bool,
) -> Result<TurnRequest, CliError> {
    let tools_override = match &args.tools_override {
        Some(text) => {
            ToolsOverride::from_json_str(&inline_or_file(text, "--override")?).flag("--override")?
        }
        None => ToolsOverride::Follow,
    };
    let profile = match &args.profile {
        Some(text) => Some(
            ToolsOverride::from_json_str(&inline_or_file(text, "--profile")?).flag("--profile")?,
        ),
        None => None,
    };
    let mut state = match &args.state {
        Some(text) => {
            TurnState::from_json_str(&inline_or_file(text, "--state")?).flag("--state")?
        }
        None => TurnState::default(),
    };
    // `--loaded a,b`: tools loaded earlier, promoted as at a turn boundary (shorthand for
    // a `--state` that records them and begins a turn). `a, b` means the same: a tool name
    // holds no space (`^[a-zA-Z0-9_-]{1,64}$`), so spaces around a comma are the writer's.
    let loaded: Vec<&str> = args
        .loaded
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect();
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
