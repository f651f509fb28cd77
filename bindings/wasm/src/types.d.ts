/** What a request or session carries: null (follow), a hand-picked list ([] = no tools), or an intent. */
export type ToolsOverride = null | string[] | ToolsIntent;

/** The toggles of an intent object. Unknown keys are kept on round trips and reported as warnings. */
export interface ToolsIntent {
  /** true: base is default_tools; false: no tools at all; null: follow the profile. */
  enabled?: boolean | null;
  /** A preset name (full, research, ...). */
  toolset?: string | null;
  /** Names or globs that filter the base (never add). */
  allowed?: string[] | null;
  /** Names or globs removed from the result (deny beats allow). */
  disabled?: string[] | null;
  /** true adds the web-search overlay, false removes it. */
  web_search?: boolean | null;
  [unknownKey: string]: unknown;
}

export type Provider = "anthropic" | "openai-chat" | "openai-responses" | "bedrock-converse" | "gemini";
/** catalog: deferred tools as names in the system prompt; native: declared with
 * defer_loading, the provider's search tool; native-client: declared, our tool_search. */
export type DeferralMode = "catalog" | "native" | "native-client";
export type TurnView = "frozen" | "live";

/** Per-session deferral state; persist it with the session and pass it back in. */
export interface TurnState {
  /** Tools loaded by tool_search, in load order. */
  loaded: string[];
  /** The loaded set frozen at the last turn boundary (what the array shows this turn). */
  frozen: string[];
  /** Turn boundaries passed. */
  turn: number;
  /** The fingerprint of the registry this turn began on (set by registry.beginTurn): the
   * turn's calls run on that version, so a registry change waits for the next turn. */
  registry?: string;
  /** With toolChanges "messages": what the conversation was told about its tools (the
   * declared tools array entries, every tool it can name, what is offered, what its catalog
   * lists). Keep it with the state; never edit it. */
  conversation?: ConversationTools;
}

/** The conversation's tool record (toolChanges "messages"). */
export interface ConversationTools {
  /** The provider the tools array was declared for (absent in records of earlier releases):
   * a turn for another provider declares again. */
  provider?: Provider;
  tools: string[];
  known: { [name: string]: { definition: string; reference: string; entry?: number } };
  offered: string[];
  catalog: string[];
}

/** How later changes of the offered tools reach the model. */
export type ToolChanges = "array" | "messages" | "messages-by-reference";

/** Options of a turn (registry.turn, registry.planTurn). */
export interface TurnOptions {
  /** Request source (webui, tui, channel, ...); must exist in the registry. */
  source?: string | null;
  /** The agent profile's tools setting. */
  profile?: ToolsOverride;
  /** The session's turn state: the one source of the tools tool_search loaded. */
  state?: TurnState | null;
  provider?: Provider;
  mode?: DeferralMode;
  /** "array" (default): the tools array changes at a turn boundary. "messages": the first
   * turn's array stays and each change is a message to append (`plan.changes`); Anthropic,
   * Bedrock Converse and OpenAI Responses, mode catalog. "messages-by-reference": the same,
   * naming only tools the first turn declared (it declares every tool the session could be
   * offered), for a model without the by-value forms. */
  toolChanges?: ToolChanges;
  /** Explicit caching: Anthropic cache_control on the last non-deferred tool; Bedrock a
   * cachePoint entry after the last tool. */
  cacheControl?: boolean;
  /** "frozen" (default) reads the set frozen at the last turn boundary; "live" the live one. */
  view?: TurnView;
}

/** Options of turn.search. */
export interface SearchOptions {
  /** Maximum hits for a keyword query (1-50, default 5). */
  limit?: number | null;
  /** "keyword" (default); "hybrid" and "model" in tool-intent-hybrid. */
  ranker?: RankerName | null;
  /** true: a keyword query that names no tool and fits no tool well enough (below the
   * ranker's calibrated threshold) loads nothing, names the nearest tools in its text and warns
   * search_abstained. Not in the core package (its size budget): tool-intent-exact and
   * tool-intent-hybrid have it. */
  abstain?: boolean | null;
}

/** Options of turn.budget. */
export interface BudgetOptions {
  /** "estimate" (default); "o200k" or "cl100k" in the tool-intent-exact package. */
  counter?: CounterName | null;
}

/** Options of registry.cacheReport: the session's start (the replay sets the view and the
 * cache breakpoint itself) and the counter. */
export interface CacheReportOptions {
  source?: string | null;
  profile?: ToolsOverride;
  state?: TurnState | null;
  provider?: Provider;
  mode?: DeferralMode;
  toolChanges?: ToolChanges;
  counter?: CounterName | null;
}

/** Warning codes (checked against the Rust WarningCode enum by tests/ts_types.rs). */
export type WarningCode =
  | "unknown_tool"
  | "unknown_toolset"
  | "unknown_intent_key"
  | "no_web_search_overlay"
  | "ignored_when_disabled"
  | "unknown_loaded_tool"
  | "quarantined_tool"
  | "normalised_schema"
  | "denied_by_source"
  | "empty_toolset"
  | "provider_refused_tool"
  | "description_shortened"
  | "nothing_deferred"
  | "search_abstained"
  | "duplicate_tool_name"
  | "turn_registry_gone"
  | "turn_registry_earlier"
  | "builtin_option_dropped"
  | "tool_changes_rewrite"
  | "tool_definition_kept";

export interface ExpansionWarning {
  code: WarningCode;
  /** override, profile, source:<name>, loaded or provider:<name>. */
  origin: string;
  message: string;
}

/** One turn: what goes in the array, what in the catalog, and the payload's fingerprint. */
export interface TurnPlan {
  /** The provider array's tools, array order (catalog mode: resident, then promoted; native
   * mode: every declared tool and the provider's search tool). */
  array: string[];
  /** The catalog's tools (deferred, not promoted), registry order; [] in native mode. */
  catalog: string[];
  /** Promoted tools (loaded by tool_search), load order. */
  promoted: string[];
  /** Renamed MCP tools in array and catalog: the wire name, the server's own name and the server. */
  renamed: { wire: string; source: string; server: string }[];
  warnings: ExpansionWarning[];
  provider: Provider;
  mode: DeferralMode;
  /** sha256:<hex> of the exact payload bytes. */
  fingerprint: string;
  /** The exact JSON bytes of the provider tools array (send them as they are). "[]" when the
   * turn has no tools: send no tools field then (OpenAI Chat and Bedrock Converse refuse an
   * empty one). */
  payload: string;
  /** Catalog text for the system prompt ("" in native mode or when nothing is deferred). */
  catalogText: string;
  /**
   * Top-level request fields the tools need besides `tools`, as JSON object text ("" when
   * none): OpenAI Chat's `web_search_options` for a built-in web search, Gemini's
   * `toolConfig` when its built-in goes with function declarations.
   */
  requestFields: string;
  /** With toolChanges "messages": the items to append to the conversation after the turn's
   * newest user message, as JSON array text ("" when nothing changed). */
  changes: string;
  /** With toolChanges "messages": the provider betas every request needs. */
  betas?: string[];
  /** With toolChanges "messages": the turn state to keep (the conversation's record after
   * this turn's change message). */
  state?: TurnState;
}

export interface SearchOutcome {
  hits: string[];
  notFound: string[];
  /** The tool-result text handed back to the model. */
  text: string;
  /** Why nothing was found when it is not a plain miss (nothing_deferred, search_abstained). */
  warnings?: ExpansionWarning[];
  /** The turn state with the hits recorded as loaded. */
  state: TurnState;
  /** native-client mode: the provider-shaped result to send instead of `text` (Anthropic:
   * tool_reference blocks for the tool_result content; OpenAI Responses: a
   * tool_search_output item, to which the caller adds the call's call_id). Read by
   * JSON.parse, which puts an object's integer-like keys ("2", "10") first in numeric order: a
   * schema with such property names is sent by JSON.stringify in another key order than the
   * payload's entry (the same keys and values; Python's dicts keep the core's order). */
  providerOutput?: unknown;
}

/** One thing a provider would refuse in a registry, or that the library changes for it. */
export interface CheckFinding {
  /** The tool ("" for a finding about the whole request). */
  tool: string;
  /** gemini_name, top_level_combinator, invalid_schema, array_items, description_length,
   * tools_per_request, builtin_fallback or builtin_option_dropped. */
  rule: string;
  /** true: the provider would refuse it (left out, or the request refused); false: changed. */
  refused: boolean;
  message: string;
}

/** `registry.check(provider)` (packages tool-intent-exact and tool-intent-hybrid; the core
 * package refuses the call by name): no findings means the registry is clean for that provider. */
export interface ProviderCheck {
  provider: Provider;
  findings: CheckFinding[];
}

/** A scripted session for `cacheReport` (docs/prompt-cache.md). */
export interface CacheScript {
  about?: string;
  /** Bytes of the system prompt stand-in (default 4000). */
  systemPromptBytes?: number;
  /** Bytes of each turn's messages stand-in (default 2000). */
  messageBytes?: number;
  turns: CacheScriptTurn[];
}

export interface CacheScriptTurn {
  /** The intent from this turn on. */
  override?: ToolsOverride;
  /** An MCP server's tools/list merged into the registry before the turn. */
  addServer?: { name: string; tools: unknown };
  /** A server's name: its tools leave the registry before the turn. */
  removeServer?: string;
  /** tool_search queries the model runs during the turn. */
  searches?: string[];
}

export interface CacheTurn {
  turn: number;
  fingerprint: string;
  arrayTools: number;
  requestBytes: number;
  requestTokens: number;
  /** First byte that differs from the previous request; null when only appended to. */
  firstDifference: number | null;
  section: "tools" | "system" | "messages" | "first";
  /** Tokens of the previous request from that byte on, written to the cache again. */
  rewrittenTokens: number;
  events: string[];
}

export interface CacheReport {
  provider: Provider;
  mode: DeferralMode;
  /** Present ("messages") when the session sent its tool changes as messages. */
  toolChanges?: ToolChanges;
  counter: string;
  turns: CacheTurn[];
  rewrites: number;
  rewrittenTokens: number;
}

export interface BudgetRow {
  name: string;
  placement: "resident" | "promoted" | "deferred";
  tokens: number;
  residentTokens: number;
}

export interface Budget {
  counter: "estimate" | "o200k_base" | "cl100k_base";
  provider: Provider;
  rows: BudgetRow[];
  /** The tools array as sent (resident and promoted tools, brackets included). */
  residentTokens: number;
  /** The catalog text; 0 when nothing is deferred. */
  catalogTokens: number;
  /** The array if every available tool were resident (no tool_search, no catalog). */
  allResidentTokens: number;
  /** allResidentTokens − (residentTokens + catalogTokens): negative when deferral costs more than it saves. */
  savingTokens: number;
  /** With toolChanges "messages": the tools array the conversation declared. */
  declaredTokens?: number;
  /** With toolChanges "messages": this turn's change message (0 when nothing changed). */
  changesTokens?: number;
}

/** UI toggles handed to buildIntent. Absent = not touched. */
export interface Toggles {
  toolsEnabled?: boolean | null;
  toolset?: string | null;
  webSearch?: boolean | null;
  disabled?: string[];
  allowed?: string[] | null;
  /** An explicit hand-pick; when set, the other toggles are ignored. */
  picked?: string[] | null;
}

/** A stored session row (database column names). tools_override may be JSON text. */
export interface SessionRunConfig {
  tools_enabled?: boolean | 0 | 1 | null;
  tools_override?: ToolsOverride | string;
  web_search?: boolean | 0 | 1 | null;
  toolset?: string | null;
}

export interface ToolInfo {
  name: string;
  title?: string;
  description: string;
  /** The MCP server's own name when the wire name differs. */
  sourceName?: string;
  default: boolean;
  deferrable: boolean;
  overlay: boolean;
  /** Its MCP annotations as the registry believes them (what `@read_only`-style selectors read). */
  effectiveAnnotations: EffectiveAnnotations;
  /** The providers that run it themselves (a registry `builtin`); empty when the agent server runs it everywhere. */
  builtinProviders: Provider[];
}

/**
 * A tool's MCP annotations as believed: its own when `trusted` (the registry's own tool, or a
 * server named in `trusted_servers`), otherwise the MCP defaults (not read-only, destructive,
 * not idempotent, open-world).
 */
export interface EffectiveAnnotations {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
  trusted: boolean;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  inputSchema?: Record<string, unknown>;
  title?: string;
  annotations?: Record<string, unknown>;
  defer?: boolean;
  [field: string]: unknown;
}

/** What a change to a registry's MCP servers did, by wire name (registry.setMcpServer). */
export interface RegistryDiff {
  /** New tools, in registry order. */
  added: string[];
  /** Tools gone, in the earlier registry's order. */
  removed: string[];
  /** Tools whose definition changed, in registry order. */
  changed: string[];
  /** Presets selecting by annotation (`@read_only`, ...) whose tools changed with it. */
  presets: PresetChange[];
}

/** Tools of the changed servers that entered or left a preset selecting by annotation. */
export interface PresetChange {
  preset: string;
  /** Tools now in the preset, in registry order. */
  entered: string[];
  /** Tools still in the registry that left it, in registry order. */
  left: string[];
}

export interface RegistryDocument {
  tools?: ToolDefinition[];
  default_tools?: string[];
  deferred_default_tools?: string[];
  toolsets?: Record<string, string[]>;
  overlays?: { web_search?: string | string[] };
  sources?: Record<string, { default?: ToolsOverride; deny?: string[] }>;
  /** MCP server names or globs whose tools' annotations are believed. */
  trusted_servers?: string[];
  history?: { version?: string; default_tools?: string[]; toolsets?: Record<string, string[]> }[];
  mcp_servers?: { name: string; tools: ToolDefinition[] | { tools: ToolDefinition[] } }[];
}

/** Error codes (checked against the Rust Error::code by tests/ts_types.rs). */
export type ToolIntentErrorCode =
  | "invalid_json"
  | "invalid_value"
  | "invalid_registry"
  | "limit_exceeded"
  | "unknown_source"
  | "invalid_argument"
  | "tool_not_available"
  | "tool_removed"
  | "provider_executed"
  | "database"
  | "store_unavailable"
  | "unknown_version"
  | "corrupt_version"
  | "store_schema_newer"
  | "internal";

/** Every function throws this: an Error with a stable code, the argument it is about and,
 * where the argument is JSON, the JSON path of the bad value inside it. */
export interface ToolIntentError extends Error {
  name: "ToolIntentError";
  code: ToolIntentErrorCode;
  /** The argument: override, registry, options, state, toggles, tools list, source, ... */
  argument?: string;
  /** A JSON path inside that argument ($, $.disabled[0], $.tools[3].name). */
  path?: string;
}
/** At run time (every entry of the package): `e instanceof ToolIntentError` recognises the
 * errors the library throws; `isToolIntentError(e)` is the same test as a type guard. */
export declare const ToolIntentError: {
  [Symbol.hasInstance](value: unknown): value is ToolIntentError;
  readonly prototype: ToolIntentError;
};
export declare function isToolIntentError(value: unknown): value is ToolIntentError;
