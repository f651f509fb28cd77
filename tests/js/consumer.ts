// Type-checks the shipped .d.ts as a consumer writes code (tsc --noEmit, strict).
// Nothing here may need `any`; the @ts-expect-error lines must stay errors.
import init, {
  Registry, buildIntent, canonicalIntent, recordLoaded, ToolIntentError, isToolIntentError,
  type TurnPlan, type SearchOutcome, type Budget, type TurnState,
  type ToolsOverride, type Toggles, type RegistryDiff,
} from "tool-intent";

await init();
const registry: Registry = Registry.embedded();
const toggles: Toggles = { webSearch: true, toolset: "research", disabled: ["memory"] };
const intent: ToolsOverride = buildIntent(toggles);
let state: TurnState = registry.beginTurn(null);
const expansion: TurnPlan = registry.planTurn(intent, { source: "webui", state, provider: "anthropic", mode: "catalog" });
const names: string[] = expansion.array.concat(expansion.catalog);
const plan: TurnPlan = registry.planTurn(intent, { provider: "openai-responses", cacheControl: false });
const bytes: string = plan.payload;
const catalogText: string = plan.catalogText;
const found: SearchOutcome = registry.turn(intent, { state }).search("select:memory", { limit: 2 });
state = recordLoaded(found.state, found.hits);
const budget: Budget = registry.turn(intent).budget();
// The exact counters exist only in tool-intent-exact (exact-consumer.ts uses them there).
// @ts-expect-error "hybrid" is not a RankerName of the core package (tool-intent-hybrid has it)
registry.turn(intent).search("convert currency", { ranker: "hybrid" });
// @ts-expect-error "o200k" is not a CounterName of the core package
registry.turn(intent).budget({ counter: "o200k" });
const half: number = budget.residentTokens + budget.catalogTokens;
const canonical: string = canonicalIntent({ enabled: true, disabled: ["a"] });
try {
  registry.planTurn({ disabled: [] });
} catch (e) {
  if (!(e instanceof ToolIntentError) || !isToolIntentError(e)) throw e;
  const err: ToolIntentError = e;
  const code: "invalid_json" | "invalid_value" | "invalid_registry" | "limit_exceeded" | "unknown_source" | "invalid_argument" | "tool_not_available" | "tool_removed" | "provider_executed" | "database" | "store_unavailable" | "unknown_version" | "corrupt_version" | "store_schema_newer" | "internal" = err.code;
  const argument: string | undefined = err.argument;
  const path: string | undefined = err.path;
  console.log(code, argument, path);
}
// Live servers: a change is the new registry and a typed diff.
const change = registry.setMcpServer("docs", { tools: [{ name: "find", inputSchema: { type: "object" } }] });
const diff: RegistryDiff = change.diff;
const live: Registry = change.registry;
const version: string = live.fingerprint();
console.log(diff.added.concat(diff.removed, diff.changed), version, live.removeMcpServer("docs").diff.removed);
// @ts-expect-error provider is a closed set
registry.planTurn(null, { provider: "gemeni" });
// @ts-expect-error an intent's enabled is a boolean
registry.planTurn({ enabled: "yes" });
// @ts-expect-error `loaded` is no option: the turn state carries the loaded tools
registry.planTurn(null, { loaded: ["memory"] });
console.log(names.length, bytes.length, catalogText.length, half, canonical, state.turn, registry.len());
