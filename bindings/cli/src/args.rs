//! The command line's flags and subcommands (clap derive): what each accepts and its help text.
//! `main.rs` turns them into library calls; the values of the choice flags are in `choices.rs`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use tool_intent::provider::ToolChanges;
use tool_intent::search::RankerKind;
use tool_intent::{CounterKind, DeferralMode, Provider};

use crate::choices::{CacheModeArg, CounterArg, ModeArg, ProviderArg, RankerArg, ToolChangesArg};

#[derive(Parser)]
#[command(
    name = "tool-intent",
    version,
    about = "Expand stored tool intent against a live registry, split resident/deferred tools, render provider payloads."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Print the turn plan as one JSON object (array, catalog, promoted, renamed, warnings, provider, mode, fingerprint).
    Expand(RequestArgs),
    /// Print a readable table of the expansion (the default view for people).
    Preview {
        #[command(flatten)]
        request: RequestArgs,
        /// Counter for the token column.
        #[arg(long, value_enum, default_value_t = CounterArg::from(CounterKind::default()))]
        counter: CounterArg,
    },
    /// Print the exact provider payload bytes (or the catalog text with --catalog).
    Payload {
        #[command(flatten)]
        request: RequestArgs,
        /// Print the catalog text for the system prompt instead of the tools array.
        #[arg(long, conflicts_with_all = ["request_fields", "changes"])]
        catalog: bool,
        /// Print the top-level request fields the tools need besides `tools` as a JSON object
        /// (OpenAI Chat's web_search_options, Gemini's toolConfig, OpenAI Responses'
        /// tool_choice with --tool-changes messages), `{}` when none, instead of the tools array.
        #[arg(long, conflicts_with = "changes")]
        request_fields: bool,
        /// Print the change message to append to the conversation after the turn's user
        /// message (`--tool-changes messages`; `[]` when nothing changed), then the turn state
        /// to keep on stderr's last line, instead of the tools array.
        #[arg(long)]
        changes: bool,
    },
    /// Replay a scripted session and report, per turn, where the request stops matching
    /// the previous one (the prompt cache's prefix) and the tokens written again.
    CacheReport {
        #[command(flatten)]
        registry: RegistryArgs,
        /// The session before the first turn (a turn's own "override" replaces the intent).
        #[command(flatten)]
        session: SessionArgs,
        /// The script (JSON text or @FILE; see docs/prompt-cache.md).
        #[arg(long, value_name = "JSON")]
        script: String,
        /// The provider API the replay is for.
        #[arg(long, value_enum, default_value_t = ProviderArg::from(Provider::default()))]
        provider: ProviderArg,
        /// A deferral mode, or all of them.
        #[arg(long, value_enum, default_value_t = CacheModeArg::All)]
        mode: CacheModeArg,
        /// Explicit prompt caching: Anthropic cache_control on the last non-deferred tool, Bedrock a cachePoint after the last tool.
        #[arg(long)]
        cache_control: bool,
        /// Counter for the token columns.
        #[arg(long, value_enum, default_value_t = CounterArg::from(CounterKind::default()))]
        counter: CounterArg,
        /// Print the reports as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List what a provider would refuse in the registry, and what the library changes for
    /// it (rule and tool). Exit status 1 when there is anything, 0 when the registry is clean.
    Check {
        #[command(flatten)]
        registry: RegistryArgs,
        /// The provider to check against.
        #[arg(long, value_enum)]
        provider: ProviderArg,
        /// Print {provider, findings: [{tool, rule, refused, message}]} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a tool_search query against the expansion.
    #[command(group(clap::ArgGroup::new("search_query").required(true).args(["query", "words"])))]
    Search {
        #[command(flatten)]
        request: RequestArgs,
        /// The query: "select:a,b" or keywords (+term = required).
        #[arg(long, value_name = "QUERY")]
        query: Option<String>,
        /// The query as the words after the command (`search create github issue`), joined by
        /// spaces: the same as --query "create github issue".
        #[arg(value_name = "WORDS", num_args = 1..)]
        words: Vec<String>,
        /// Maximum number of hits for a keyword query. The help states the library's bounds
        /// and default; left out, the library applies its default.
        #[arg(long, help = format!(
            "Maximum number of hits for a keyword query (1 to {}; default: {})",
            tool_intent::registry::MAX_SEARCH_LIMIT,
            tool_intent::registry::DEFAULT_SEARCH_LIMIT
        ))]
        limit: Option<usize>,
        /// How keyword queries are ranked.
        #[arg(long, value_enum, default_value_t = RankerArg::from(RankerKind::default()))]
        ranker: RankerArg,
        /// all-MiniLM-L6-v2's model.safetensors, for --ranker model.
        #[arg(long, value_name = "FILE")]
        model: Option<PathBuf>,
        /// Answer "no tool fits" (loading nothing, naming the nearest tools, warning
        /// search_abstained) when a query names no tool and its best match scores below the
        /// ranker's calibrated threshold.
        #[arg(long)]
        abstain: bool,
        /// Print {hits, notFound, text, state, warnings?, providerOutput?} as JSON instead of the result text.
        #[arg(long)]
        json: bool,
    },
    /// Print the canonical JSON of an override.
    Canonical {
        /// The override (JSON text, or @FILE).
        #[arg(long = "override", value_name = "JSON")]
        tools_override: String,
    },
    /// Build the intent a writer stores from UI toggles, and the session row.
    BuildIntent {
        /// Toggles (JSON text, or @FILE): {"tools_enabled","toolset","web_search","disabled","allowed","picked"}.
        #[arg(long, value_name = "JSON")]
        toggles: String,
    },
    /// Token budget of the tool array: resident vs deferred, per tool.
    Budget {
        #[command(flatten)]
        request: RequestArgs,
        /// Counter: the fast estimator, or the exact BPE tokenizer.
        #[arg(long, value_enum, default_value_t = CounterArg::from(CounterKind::default()))]
        counter: CounterArg,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Registry versions in a store several server processes share.
    #[command(subcommand)]
    Registry(RegistryCommand),
    /// Rewrite legacy snapshot sessions to intents (a SQLite file or a postgresql:// URL).
    Migrate(MigrateArgs),
    /// List rows that still hold legacy snapshots (a SQLite file or a postgresql:// URL).
    Audit {
        #[command(flatten)]
        sessions: SessionTableArgs,
        #[command(flatten)]
        registry: RegistryArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Clone)]
pub(crate) struct RegistryArgs {
    /// Registry JSON file (our format, an MCP tools/list result, or a bare tool array). Default: the embedded registry.
    #[arg(long, value_name = "FILE")]
    pub(crate) registry: Option<PathBuf>,
    /// Merge an MCP server's tools/list result as mcp__NAME__<tool> (repeatable).
    #[arg(long = "mcp", value_name = "NAME=FILE")]
    pub(crate) mcp: Vec<String>,
    /// Believe this MCP server's tool annotations (a name or glob, repeatable): added to the
    /// registry's `trusted_servers`. Untrusted servers' tools are taken as not read-only,
    /// destructive and open-world, whatever they claim.
    #[arg(long = "trust", value_name = "SERVER")]
    pub(crate) trust: Vec<String>,
    /// A registry version store (a SQLite file, or a postgres:// URL) that server processes
    /// share: plan on its newest version, or on the one --state was stamped with; the flags
    /// above then build only what `registry publish` publishes.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) store: Option<String>,
}

/// `registry`: the versions of a store.
#[derive(Subcommand)]
pub(crate) enum RegistryCommand {
    /// Publish the registry the other flags build as the store's newest version; prints its
    /// fingerprint and sequence number.
    Publish {
        #[command(flatten)]
        registry: RegistryArgs,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the store's versions, oldest first.
    Versions {
        /// The store (a SQLite file, or a postgres:// URL).
        #[arg(long, value_name = "PATH|URL")]
        store: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Remove versions no session should still name: all but the newest --keep-newest, those
    /// that were the newest or had a turn planned on them within --keep-hours, and the
    /// versions such a turn plans beside; then the tools no kept version has.
    Gc {
        /// The store (a SQLite file, or a postgres:// URL).
        #[arg(long, value_name = "PATH|URL")]
        store: String,
        /// Versions kept whatever their age.
        #[arg(long, default_value_t = tool_intent_store::Retention::default().keep_newest)]
        keep_newest: usize,
        /// Versions that were the newest, or had a turn planned on them, less than this long
        /// ago are kept (a turn on one may still run).
        #[arg(long, default_value_t = tool_intent_store::Retention::default().keep_hours())]
        keep_hours: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// The session side of a request: intent, profile, source and turn state.
#[derive(Args, Clone)]
pub(crate) struct SessionArgs {
    /// The tools override (JSON text, or @FILE): null, [], ["a","b"] or an intent object.
    #[arg(long = "override", value_name = "JSON")]
    pub(crate) tools_override: Option<String>,
    /// The agent profile's tools setting, an override (JSON text, or @FILE).
    #[arg(long, value_name = "JSON")]
    pub(crate) profile: Option<String>,
    /// The request's source (webui, tui, channel, ...).
    #[arg(long)]
    pub(crate) source: Option<String>,
    /// Tools loaded earlier by tool_search, promoted as at the start of a turn (comma-separated;
    /// spaces around the commas are ignored).
    #[arg(long, value_delimiter = ',')]
    pub(crate) loaded: Vec<String>,
    /// A persisted turn state (JSON text or @FILE), instead of or before --loaded.
    #[arg(long, value_name = "JSON")]
    pub(crate) state: Option<String>,
    /// How later changes of the offered tools reach the model.
    #[arg(long, value_enum, default_value_t = ToolChangesArg::from(ToolChanges::default()))]
    pub(crate) tool_changes: ToolChangesArg,
}

#[derive(Args, Clone)]
pub(crate) struct RequestArgs {
    #[command(flatten)]
    pub(crate) registry: RegistryArgs,
    #[command(flatten)]
    pub(crate) session: SessionArgs,
    /// The provider API the request is for: its tool shapes, limits and refusals.
    #[arg(long, value_enum, default_value_t = ProviderArg::from(Provider::default()))]
    pub(crate) provider: ProviderArg,
    /// How deferred tools reach the model.
    #[arg(long, value_enum, default_value_t = ModeArg::from(DeferralMode::default()))]
    pub(crate) mode: ModeArg,
    /// Explicit prompt caching: Anthropic cache_control on the last non-deferred tool, Bedrock a cachePoint after the last tool.
    #[arg(long)]
    pub(crate) cache_control: bool,
}

/// The session table `migrate` and `audit` work on.
#[derive(Args)]
pub(crate) struct SessionTableArgs {
    /// A SQLite file, or a PostgreSQL URL (postgresql://user@host/db).
    #[arg(long, value_name = "FILE|URL")]
    pub(crate) db: String,
    /// The session table.
    #[arg(long, default_value = tool_intent_migrate::DEFAULT_TABLE)]
    pub(crate) table: String,
}

#[derive(Args)]
pub(crate) struct MigrateArgs {
    #[command(flatten)]
    pub(crate) sessions: SessionTableArgs,
    #[command(flatten)]
    pub(crate) registry: RegistryArgs,
    /// Report what would change; change nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Restore the rows the migration rewrote from the backup table, each only if it still
    /// holds what the migration wrote (rows written since are left alone and listed).
    #[arg(long)]
    pub(crate) undo: bool,
    /// Rows per transaction (online: servers keep writing between batches; a killed run
    /// resumes). Default: one transaction on SQLite, 1000 rows on PostgreSQL.
    #[arg(long, value_name = "N")]
    pub(crate) batch_size: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
