// A straightforward plain-JS implementation of the same rules, as a team would otherwise
// hand-write it in its web UI: JSON.parse, RegExp globs, Sets, a sorted-keys stringify and a
// synchronous SHA-256 — in a browser that is a JS SHA-256 (SubtleCrypto is async), in Node
// it can be node:crypto; both variants are measured. It implements what the benchmark exercises (intent objects with
// toolset / enabled / allowed / disabled / web_search, deferral, turn-frozen promotion, the
// Anthropic catalog-mode payload) and is checked against the wasm output before timing.
import { createHash } from "node:crypto";

const globToRegExp = (p, flags = "") =>
  new RegExp("^" + p.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$", flags);
const isGlob = (p) => p.includes("*") || p.includes("?");

export class PlainRegistry {
  constructor(text, { hash = "js" } = {}) {
    this.hash = hash === "node" ? (s) => createHash("sha256").update(s, "utf8").digest("hex") : sha256Hex;
    const doc = JSON.parse(text);
    this.tools = doc.tools.map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.parameters ?? t.inputSchema, builtin: t.builtin }));
    if (!this.tools.some((t) => t.name === "tool_search")) throw new Error("benchmark registries define tool_search");
    this.index = new Map(this.tools.map((t, i) => [t.name, i]));
    this.defaults = this.match(doc.default_tools ?? this.tools.map((t) => t.name));
    this.deferredDefaults = this.match(doc.deferred_default_tools ?? []);
    this.toolsets = new Map(Object.entries(doc.toolsets ?? {}).map(([k, v]) => [k, this.match(v)]));
    this.overlay = this.match([].concat(doc.overlays?.web_search ?? []));
    this.available = this.toolsets.get("full") ?? new Set(this.tools.keys());
    for (const i of this.overlay) this.available.add(i);
    this.available.add(this.index.get("tool_search"));
  }

  match(patterns, ignoreCase = false) {
    const out = new Set();
    for (const p of patterns) {
      if (isGlob(p)) {
        const re = globToRegExp(p, ignoreCase ? "i" : "");
        this.tools.forEach((t, i) => re.test(t.name) && out.add(i));
      } else if (ignoreCase) {
        const lower = p.toLowerCase();
        this.tools.forEach((t, i) => t.name.toLowerCase() === lower && out.add(i));
      } else if (this.index.has(p)) out.add(this.index.get(p));
    }
    return out;
  }

  deferrable(i) {
    const name = this.tools[i].name;
    if (name === "tool_search" || this.overlay.has(i)) return false;
    return !(this.defaults.has(i) && !this.deferredDefaults.has(i));
  }

  preview(intent, state) {
    let base = intent.toolset != null && this.toolsets.has(intent.toolset) ? new Set(this.toolsets.get(intent.toolset)) : new Set(this.defaults);
    if (intent.enabled === false) base = new Set();
    if (intent.allowed) {
      const allowed = this.match(intent.allowed);
      base = new Set([...base].filter((i) => allowed.has(i)));
    }
    const disabled = this.match(intent.disabled ?? [], true);
    for (const i of disabled) base.delete(i);
    if (intent.web_search === true && intent.enabled !== false) for (const i of this.overlay) if (!disabled.has(i)) base.add(i);
    if (intent.web_search === false) for (const i of this.overlay) base.delete(i);
    const chosen = [...base].filter((i) => this.available.has(i)).sort((a, b) => a - b);
    const ts = this.index.get("tool_search");
    const blocked = disabled.has(ts);
    const resident = [], deferred = [];
    for (const i of chosen) {
      if (i === ts) continue;
      (!blocked && this.deferrable(i) ? deferred : resident).push(i);
    }
    if (deferred.length) resident.push(ts), resident.sort((a, b) => a - b);
    const deferredSet = new Set(deferred);
    const promoted = [];
    for (const name of state.frozen) {
      const i = this.index.get(name);
      if (i !== undefined && deferredSet.has(i) && !promoted.includes(i)) promoted.push(i);
    }
    const promotedSet = new Set(promoted);
    const array = [...resident, ...promoted];
    const catalog = deferred.filter((i) => !promotedSet.has(i));
    const json = "[" + array.map((i) => this.entry(i)).join(",") + "]";
    const fingerprint = "sha256:" + this.hash(json);
    const name = (i) => this.tools[i].name;
    return {
      tools: chosen.map(name),
      resident: array.map(name),
      deferred: catalog.map(name),
      promoted: promoted.map(name),
      fingerprint,
    };
  }

  entry(i) {
    const t = this.tools[i];
    // A provider-executed tool (`builtin`, here the registry's web search) goes out in
    // Anthropic's own form, `WebSearchTool20260318` without options, as the library renders it
    // (src/registry/provider_tool.rs): the reference does the work the library does.
    if (t.builtin?.kind === "web_search" && t.builtin.providers?.includes("anthropic")) {
      return `{"type":${JSON.stringify(t.builtin.anthropic_version ?? "web_search_20260318")},"name":"web_search"}`;
    }
    const desc = t.description ? `,"description":${JSON.stringify(t.description)}` : "";
    return `{"name":${JSON.stringify(t.name)}${desc},"input_schema":${stableStringify(t.parameters)}}`;
  }
}

function stableStringify(v) {
  if (Array.isArray(v)) return "[" + v.map(stableStringify).join(",") + "]";
  if (v && typeof v === "object") {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + stableStringify(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

// SHA-256 (FIPS 180-4) over the UTF-8 bytes of a string: the textbook implementation a web UI
// would carry for a synchronous fingerprint.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const encoder = new TextEncoder();

export function sha256Hex(text) {
  const bytes = encoder.encode(text);
  const len = bytes.length;
  const blocks = ((len + 9 + 63) >> 6) << 6;
  const buf = new Uint8Array(blocks);
  buf.set(bytes);
  buf[len] = 0x80;
  const view = new DataView(buf.buffer);
  view.setUint32(blocks - 4, (len * 8) >>> 0);
  view.setUint32(blocks - 8, Math.floor(len / 0x20000000));
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let off = 0; off < blocks; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
}
