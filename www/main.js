// The demo page: every value shown is computed by the tool-intent wasm package. This file only
// keeps the page's state (toggles, registry, turn state) and renders what the library returns.
import init, { Registry, buildIntent, canonicalIntent } from "tool-intent";
// The scripted sessions and the nine MCP servers they run against, bundled as text.
import cacheScript from "../tests/data/cache-session.json?raw";
import toggleScript from "../tests/data/cache-session-toggles.json?raw";
import mcpEverything from "../tests/data/mcp/everything.json?raw";
import mcpFetch from "../tests/data/mcp/fetch.json?raw";
import mcpFilesystem from "../tests/data/mcp/filesystem.json?raw";
import mcpGit from "../tests/data/mcp/git.json?raw";
import mcpGithub from "../tests/data/mcp/github.json?raw";
import mcpMemory from "../tests/data/mcp/memory.json?raw";
import mcpPlaywright from "../tests/data/mcp/playwright.json?raw";
import mcpSeqthink from "../tests/data/mcp/seqthink.json?raw";
import mcpTime from "../tests/data/mcp/time.json?raw";

const SESSION_SERVERS = {
  everything: mcpEverything, fetch: mcpFetch, filesystem: mcpFilesystem, git: mcpGit, github: mcpGithub,
  memory: mcpMemory, playwright: mcpPlaywright, seqthink: mcpSeqthink, time: mcpTime,
};
const CACHE_MODES = ["catalog", "native", "native-client"];
const CACHE_SCRIPTS = { "cache-session": cacheScript, "cache-session-toggles": toggleScript };

/** The chart's series for a provider: each deferral mode it has, then `catalog` with tool
 * changes sent as messages where the provider takes them (key "messages"). */
function cacheSeries(provider) {
  const native = provider === "anthropic" || provider === "openai-responses";
  const series = (native ? CACHE_MODES : ["catalog"]).map((mode) => ({ key: mode, options: { provider, mode } }));
  if (native || provider === "bedrock-converse") {
    series.push({ key: "messages", options: { provider, mode: "catalog", toolChanges: "messages" } });
  }
  if (provider === "anthropic") {
    series.push({ key: "messages-native-client", options: { provider, mode: "native-client", toolChanges: "messages" } });
  }
  return series;
}

const $ = (id) => document.getElementById(id);
const PROVIDERS = ["anthropic", "openai-chat", "openai-responses", "bedrock-converse", "gemini"];
const NEW_TOOL = "summarize_diff";

const state = {
  registry: null,
  registryLabel: "",
  toggles: { toolsEnabled: true, toolset: null, webSearch: null, disabled: [] },
  globs: [],
  source: "",
  provider: "anthropic",
  mode: "catalog",
  cacheControl: false,
  turn: { loaded: [], frozen: [], turn: 0 },
  log: [],
  // The old design's stored value: the expanded list, frozen when the toggles were saved.
  snapshot: null,
  snapshotRegistryVersion: 0,
  registryVersion: 0,
};

function beginTurnSafe(s) {
  try {
    return state.registry ? state.registry.beginTurn(s) : { loaded: [], frozen: [], turn: 0 };
  } catch {
    return { loaded: [], frozen: [], turn: 0 };
  }
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, "");
    else if (v !== false && v != null) e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function showError(box, err) {
  box.hidden = !err;
  box.textContent = err ? `${err.code ? `[${err.code}] ` : ""}${err.message}` : "";
}

function currentIntent() {
  const disabled = [...state.toggles.disabled, ...state.globs];
  return buildIntent({ ...state.toggles, disabled });
}

function requestOptions(extra = {}) {
  return { source: state.source || null, provider: state.provider, mode: state.mode, cacheControl: state.cacheControl, state: state.turn, ...extra };
}

function setRegistry(registry, label) {
  state.registry = registry;
  state.registryLabel = label;
  state.registryVersion += 1;
  // A new registry is a new deployment: start a fresh session and re-save the toggles.
  state.turn = beginTurnSafe(null);
  state.log = [];
  state.snapshot = null;
  const sources = registry.sourceNames();
  if (!sources.includes(state.source)) state.source = "";
  if (state.toggles.toolset && !registry.toolsetNames().includes(state.toggles.toolset)) state.toggles.toolset = null;
  renderControls();
  saveToggles();
}

// "Saving" the toggles: the intent design stores the intent; the old design would store
// the expansion as a list. Called on every toggle change (that is when writers write).
function saveToggles() {
  try {
    const e = state.registry.planTurn(currentIntent(), requestOptions({ state: null }));
    state.snapshot = [...e.array, ...e.catalog];
    state.snapshotRegistryVersion = state.registryVersion;
  } catch {
    state.snapshot = null;
  }
  $("registry-change-result").textContent = "";
  render();
}

function renderControls() {
  const r = state.registry;
  $("registry-status").textContent = `${state.registryLabel}: ${r.len()} tools, presets ${r.toolsetNames().join(", ") || "none"}`;

  const presets = $("presets");
  presets.replaceChildren();
  const names = [null, ...r.toolsetNames()];
  // Each chip's title is its definition (names, globs, or @read_only-style selectors).
  const definitions = JSON.parse(r.toJson()).toolsets ?? {};
  for (const name of names) {
    const input = el("input", { type: "radio", name: "preset", value: name ?? "", checked: state.toggles.toolset === name });
    const definition = name === null ? "default_tools" : (definitions[name] ?? []).join(", ");
    input.addEventListener("change", () => {
      state.toggles.toolset = name;
      saveToggles();
    });
    presets.append(el("label", { title: definition }, input, name ?? "default"));
  }

  const source = $("source");
  source.replaceChildren(el("option", { value: "" }, "(none)"), ...r.sourceNames().map((s) => el("option", { value: s }, s)));
  source.value = state.source;

  const list = $("tool-list");
  list.replaceChildren();
  const info = r.toolInfos();
  $("tool-count").textContent = String(info.length);
  for (const t of info) {
    const id = `tool-${t.name}`;
    const input = el("input", { type: "checkbox", id, checked: !state.toggles.disabled.includes(t.name) });
    input.addEventListener("change", () => {
      const d = new Set(state.toggles.disabled);
      if (input.checked) d.delete(t.name);
      else d.add(t.name);
      state.toggles.disabled = [...d].sort();
      saveToggles();
    });
    const tags = [];
    if (t.default) tags.push(el("span", { class: "tag" }, t.deferrable ? "default, deferred" : "default"));
    else if (t.overlay) tags.push(el("span", { class: "tag" }, "overlay"));
    else if (t.deferrable) tags.push(el("span", { class: "tag" }, "deferred"));
    if (t.sourceName) tags.push(el("span", { class: "tag source-name", title: "the MCP server's own name, used for dispatch" }, `MCP name: ${t.sourceName}`));
    // What the tool does by its MCP annotations, as the registry believes them: an untrusted
    // server's claims are not read (presets such as @read_only select by these).
    if (t.builtinProviders.length) {
      tags.push(el("span", { class: "tag builtin", title: "run by these providers themselves; every other provider gets the function the agent server runs" }, `built-in: ${t.builtinProviders.join(", ")}`));
    }
    const a = t.effectiveAnnotations;
    const does = a.readOnly ? "read-only" : a.destructive ? "destructive" : "writes";
    tags.push(el("span", {
      class: `tag does${a.trusted ? "" : " untrusted"}`,
      title: a.trusted ? `MCP annotations: ${does}${a.openWorld ? ", open world" : ", closed world"}` : "untrusted server: its annotations are not believed (trusted_servers)",
    }, a.trusted ? does : `${does}?`));
    // Filled by render(): whether this turn offers the tool (a glob, the preset, the switch or
    // the source's ceiling can leave out a tool whose box is ticked).
    const offered = el("span", { class: "tag offered", hidden: "" });
    list.append(el("li", { title: t.description.split("\n")[0], "data-tool": t.name }, input, el("label", { for: id }, t.name), ...tags, offered));
  }
  renderGlobs();
}

function renderGlobs() {
  const ul = $("globs");
  ul.replaceChildren();
  for (const g of state.globs) {
    const remove = el("button", { type: "button", "aria-label": `Enable ${g} again` }, "×");
    remove.addEventListener("click", () => {
      state.globs = state.globs.filter((x) => x !== g);
      renderGlobs();
      saveToggles();
    });
    ul.append(el("li", {}, el("code", {}, g), remove));
  }
}

function bytes(s) {
  return new TextEncoder().encode(s).length;
}

function render() {
  const r = state.registry;
  const errorBox = $("expand-error");
  let intent, e, b;
  try {
    intent = currentIntent();
    // One turn value: the expansion is made once for the plan and the budget; freed at once,
    // as a turn holds its registry version until it is freed or collected.
    const turn = r.turn(intent, requestOptions());
    try {
      e = turn.plan();
      b = turn.budget();
    } finally {
      turn.free();
    }
    showError(errorBox, null);
  } catch (err) {
    showError(errorBox, err);
    return;
  }

  const stored = canonicalIntent(intent);
  $("stored-intent").textContent = stored;
  $("intent-bytes").textContent = `${bytes(stored)} bytes`;
  const snapshotText = state.snapshot ? JSON.stringify(state.snapshot) : "(nothing)";
  $("stored-snapshot").textContent = snapshotText;
  $("snapshot-bytes").textContent = `${bytes(snapshotText)} bytes`;

  $("fingerprint").textContent = e.fingerprint;
  const tokens = new Map(b.rows.map((row) => [row.name, row.tokens]));
  const resident = $("resident");
  resident.replaceChildren(...e.array.map((n) => el("li", { class: e.promoted.includes(n) ? "promoted" : "" }, n, el("span", { class: "tok" }, ` · ${tokens.get(n) ?? "?"} tok`))));
  const deferred = $("deferred");
  deferred.replaceChildren(...(e.catalog.length ? e.catalog.map((n) => el("li", {}, n)) : [el("li", {}, "(nothing deferred)")]));
  $("resident-count").textContent = `${e.array.length} tools`;
  $("deferred-count").textContent = `${e.catalog.length} names`;
  $("warnings").replaceChildren(...e.warnings.map((w) => el("li", {}, `[${w.code}] ${w.message}`)));
  const offered = new Set([...e.array, ...e.catalog]);
  for (const li of $("tool-list").children) {
    const on = offered.has(li.dataset.tool);
    const tag = li.querySelector(".offered");
    li.classList.toggle("off", !on);
    tag.hidden = on || !li.querySelector("input").checked;
    tag.textContent = "off this turn";
    tag.title = "Ticked, but this turn does not offer it: a disabled glob, the preset, the Tools switch or the source's ceiling leaves it out.";
  }

  const max = Math.max(1, b.allResidentTokens, b.residentTokens + b.catalogTokens);
  $("bar-resident").style.width = `${(100 * b.residentTokens) / max}%`;
  $("bar-catalog").style.width = `${(100 * b.catalogTokens) / max}%`;
  $("bar-all").style.width = `${(100 * b.allResidentTokens) / max}%`;
  $("bar-total").textContent = `${b.residentTokens + b.catalogTokens} tok`;
  $("bar-all-total").textContent = `${b.allResidentTokens} tok`;
  const pct = b.allResidentTokens ? Math.round((100 * Math.abs(b.savingTokens)) / b.allResidentTokens) : 0;
  // Deferring a few small tools can cost more than it saves (the catalog and tool_search).
  const effect = b.savingTokens < 0 ? "costs" : "saves";
  const summary = `Resident array ~${b.residentTokens} tokens + catalog ~${b.catalogTokens} tokens; with every tool resident the array would be ~${b.allResidentTokens} tokens. Deferral ${effect} ~${Math.abs(b.savingTokens)} tokens (${pct}%) on every request.`;
  $("budget-summary").textContent = summary;
  $("budget-bars").setAttribute("aria-label", summary);

  const rows = PROVIDERS.map((p) => {
    const cell = (mode) => {
      try {
        // The turn's own plan for the provider and mode shown above; one planning per other cell.
        const plan = p === e.provider && mode === e.mode ? e : r.planTurn(intent, requestOptions({ provider: p, mode }));
        return el("code", {}, plan.fingerprint.slice(0, 23) + "…");
      } catch (err) {
        return el("span", { class: "hint" }, err.code === "invalid_argument" ? "n/a (no native deferral)" : err.message);
      }
    };
    return el("tr", {}, el("th", { scope: "row" }, p), el("td", {}, cell("catalog")), el("td", {}, cell("native")), el("td", {}, cell("native-client")));
  });
  $("fingerprints").replaceChildren(...rows);

  $("turn-number").textContent = String(state.turn.turn);
  $("loaded-list").textContent = state.turn.loaded.length ? state.turn.loaded.join(", ") : "none";
  $("turn-log").replaceChildren(...state.log.map((entry) => el("li", { class: entry.kind }, entry.text)));
}

function logTurn(kind, text) {
  state.log.push({ kind, text });
  if (state.log.length > 40) state.log.shift();
}

function loadRegistryFromText(text, serverName) {
  const errorBox = $("registry-error");
  try {
    if (!text.trim()) throw Object.assign(new Error("paste a registry or a tools/list result first"), { code: "empty" });
    if (serverName) setRegistry(state.registry.setMcpServer(serverName, text).registry, `${state.registryLabel} + ${serverName}`);
    else setRegistry(Registry.fromJson(text), "pasted registry");
    showError(errorBox, null);
  } catch (err) {
    // The previous registry and toggles stay as they were.
    showError(errorBox, err);
  }
}

/** What each deferral mode sends (docs/contract.md, "Provider payloads"), under its select. */
const MODE_HINTS = {
  catalog: "Deferred tools are named in a catalog in the system prompt; our tool_search loads them.",
  native: "Deferred tools go in the array with defer_loading; the provider's own search loads them (Anthropic, OpenAI Responses).",
  "native-client": "Deferred tools go in the array with defer_loading; our tool_search loads them (Anthropic, OpenAI Responses).",
};

function showModeHint() {
  $("mode-hint").textContent = MODE_HINTS[state.mode];
}

function wire() {
  $("use-embedded").addEventListener("click", () => {
    showError($("registry-error"), null);
    setRegistry(Registry.embedded(), "embedded registry");
  });
  $("load-registry").addEventListener("click", () => loadRegistryFromText($("registry-text").value, $("mcp-name").value.trim()));
  $("registry-file").addEventListener("change", async (ev) => {
    const file = ev.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    $("registry-text").value = text;
    loadRegistryFromText(text, $("mcp-name").value.trim() || file.name.replace(/\.json$/i, "").replace(/[^A-Za-z0-9_-]/g, "-"));
  });
  const area = $("registry-text");
  area.addEventListener("dragover", (ev) => {
    ev.preventDefault();
    area.classList.add("drop");
  });
  area.addEventListener("dragleave", () => area.classList.remove("drop"));
  area.addEventListener("drop", async (ev) => {
    ev.preventDefault();
    area.classList.remove("drop");
    const file = ev.dataTransfer?.files?.[0];
    if (file) {
      area.value = await file.text();
      loadRegistryFromText(area.value, $("mcp-name").value.trim() || file.name.replace(/\.json$/i, "").replace(/[^A-Za-z0-9_-]/g, "-"));
    }
  });

  $("tools-enabled").addEventListener("change", (ev) => {
    state.toggles.toolsEnabled = ev.target.checked ? true : false;
    saveToggles();
  });
  for (const radio of document.querySelectorAll('input[name="web-search"]')) {
    radio.addEventListener("change", () => {
      state.toggles.webSearch = radio.value === "on" ? true : radio.value === "off" ? false : null;
      saveToggles();
    });
  }
  $("source").addEventListener("change", (ev) => {
    state.source = ev.target.value;
    saveToggles();
  });
  $("provider").addEventListener("change", (ev) => {
    state.provider = ev.target.value;
    render();
  });
  $("mode").addEventListener("change", (ev) => {
    state.mode = ev.target.value;
    showModeHint();
    render();
  });
  $("cache-control").addEventListener("change", (ev) => {
    state.cacheControl = ev.target.checked;
    render();
  });
  const addGlob = () => {
    const g = $("glob").value.trim();
    if (g && !state.globs.includes(g)) state.globs.push(g);
    $("glob").value = "";
    renderGlobs();
    saveToggles();
  };
  $("add-glob").addEventListener("click", addGlob);
  $("glob").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") addGlob();
  });

  $("next-turn").addEventListener("click", () => {
    const before = safeFingerprint();
    state.turn = state.registry.beginTurn(state.turn);
    const after = safeFingerprint();
    logTurn(before === after ? "same" : "changed", `turn ${state.turn.turn} starts: array ${before === after ? "unchanged" : `changed (${short(before)} → ${short(after)})`}`);
    render();
  });
  const runSearch = () => {
    const q = $("search-query").value.trim();
    if (!q) return;
    try {
      const before = safeFingerprint();
      const turn = state.registry.turn(currentIntent(), requestOptions());
      let res;
      try {
        res = turn.search(q);
      } finally {
        turn.free();
      }
      state.turn = res.state;
      const after = safeFingerprint();
      const hits = res.hits.length ? res.hits.join(", ") : "no hits";
      logTurn(before === after ? "same" : "changed", `turn ${state.turn.turn}: tool_search "${q}" → ${hits}; array ${before === after ? "unchanged until the next turn" : "changed"}`);
      showError($("expand-error"), null);
    } catch (err) {
      showError($("expand-error"), err);
    }
    render();
  };
  $("run-search").addEventListener("click", runSearch);
  $("search-query").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") runSearch();
  });
  $("reset-session").addEventListener("click", () => {
    state.turn = beginTurnSafe(null);
    state.log = [];
    render();
  });

  $("registry-changed").addEventListener("click", () => {
    const doc = JSON.parse(state.registry.toJson());
    if (!doc.tools.some((t) => t.name === NEW_TOOL)) {
      doc.tools.push({
        name: NEW_TOOL,
        description: "Summarize the working tree's uncommitted changes as a short review note.",
        parameters: { type: "object", properties: { path: { type: "string", description: "Limit the summary to this path." } } },
      });
    }
    doc.default_tools = [...(doc.default_tools ?? doc.tools.map((t) => t.name)), NEW_TOOL].filter((v, i, a) => a.indexOf(v) === i);
    for (const ts of Object.values(doc.toolsets ?? {})) if (!ts.includes(NEW_TOOL)) ts.push(NEW_TOOL);
    const snapshot = state.snapshot;
    const label = state.registryLabel;
    state.registry = Registry.fromJson(JSON.stringify(doc));
    state.registryVersion += 1;
    state.registryLabel = `${label} + ${NEW_TOOL}`;
    renderControls();
    state.snapshot = snapshot; // the old design's row is not rewritten
    const now = state.registry.planTurn(currentIntent(), requestOptions());
    const intentSees = now.array.includes(NEW_TOOL) || now.catalog.includes(NEW_TOOL);
    const snapshotSees = (snapshot ?? []).includes(NEW_TOOL);
    $("registry-change-result").textContent =
      `Registry now ships ${NEW_TOOL}. Intent session: ${intentSees ? `picks it up on its next request (${now.array.includes(NEW_TOOL) ? "resident" : "deferred"})` : "does not get it (its intent excludes it)"}. ` +
      `Old snapshot session: ${snapshotSees ? "has it" : "never sees it — its stored list is frozen"}.`;
    render();
  });
}

/** The cache-impact report of the scripted session for one provider, drawn as grouped bars
 * (one series per mode) with a totals table. Figures go into data attributes for the test. */
function renderCacheReport() {
  const provider = $("cache-provider").value;
  const script = CACHE_SCRIPTS[$("cache-session").value];
  $("cache-about").textContent = JSON.parse(script).about;
  const box = $("cache-error");
  const series = cacheSeries(provider);
  let reports;
  try {
    const registry = Object.entries(SESSION_SERVERS).reduce((r, [name, text]) => r.setMcpServer(name, text).registry, Registry.embedded());
    reports = series.map(({ key, options }) => ({ ...registry.cacheReport(script, null, options), key }));
    registry.free();
    showError(box, null);
  } catch (err) {
    showError(box, err);
    return;
  }
  const turns = reports[0].turns.length;
  const max = Math.max(1, ...reports.flatMap((r) => r.turns.map((t) => t.rewrittenTokens)));
  const W = 640, H = 180, left = 44, bottom = 22, slot = (W - left) / turns, bar = Math.max(2, (slot - 4) / series.length);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "cache-chart");
  const add = (tag, attrs, textContent) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (textContent !== undefined) node.textContent = textContent;
    svg.append(node);
    return node;
  };
  add("line", { x1: left, y1: H - bottom, x2: W, y2: H - bottom, class: "axis" });
  add("text", { x: left - 4, y: 12, "text-anchor": "end", class: "tick" }, `${max}`);
  add("text", { x: left - 4, y: H - bottom, "text-anchor": "end", class: "tick" }, "0");
  reports.forEach((r, m) => {
    r.turns.forEach((t, k) => {
      const h = ((H - bottom - 16) * t.rewrittenTokens) / max;
      const rect = add("rect", { x: left + k * slot + 2 + m * bar, y: H - bottom - h, width: bar, height: h, class: `mode-${r.key}` });
      rect.dataset.mode = r.key;
      rect.dataset.turn = String(t.turn);
      rect.dataset.tokens = String(t.rewrittenTokens);
      const title = document.createElementNS(ns, "title");
      title.textContent = `turn ${t.turn}, ${r.key}: ${t.rewrittenTokens} tokens written again (${t.section})${t.events.length ? "; " + t.events.join("; ") : ""}`;
      rect.append(title);
    });
  });
  for (let k = 0; k < turns; k++) add("text", { x: left + k * slot + slot / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, String(k + 1));
  $("cache-chart").replaceChildren(svg);
  $("cache-chart").setAttribute("aria-label", reports.map((r) => `${r.key}: ${r.rewrites} rewrites, ${r.rewrittenTokens} tokens written again`).join("; "));
  $("cache-totals").querySelector("tbody").replaceChildren(
    ...reports.map((r) => {
      const row = el(
        "tr", {},
        el("th", { scope: "row" }, r.key.startsWith("messages") ? `${r.mode}, tool changes as messages` : r.key),
        el("td", {}, String(r.rewrites)),
        el("td", {}, String(r.rewrittenTokens)),
        el("td", {}, r.turns.filter((t) => t.rewrittenTokens > 0).map((t) => t.turn).join(", ") || "none"),
      );
      row.dataset.mode = r.key;
      row.dataset.rewrites = String(r.rewrites);
      row.dataset.tokens = String(r.rewrittenTokens);
      return row;
    }),
  );
}

function safeFingerprint() {
  try {
    return state.registry.planTurn(currentIntent(), requestOptions()).fingerprint;
  } catch {
    return "";
  }
}

function short(fp) {
  return fp ? fp.slice(7, 15) : "?";
}

await init();
wire();
showModeHint();
setRegistry(Registry.embedded(), "embedded registry");
$("cache-provider").addEventListener("change", renderCacheReport);
$("cache-session").addEventListener("change", renderCacheReport);
renderCacheReport();
document.body.dataset.ready = "true";
