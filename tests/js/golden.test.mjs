// wasm half of the cross-target golden test (Node). Every case of
// tests/golden/cross-target-cases.json is rendered by the wasm package, imported by its name
// as a consumer would, and its fingerprint compared with the native build's
// (tests/golden/cross-target.json, written and checked by tests/cross_target_golden.rs).
// The payload bytes are hashed here too, so equal fingerprints mean equal bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { ToolRegistry, fingerprint } from "tool-intent";

const root = new URL("../../", import.meta.url);
const read = (p) => readFileSync(new URL(p, root), "utf8");
const cases = JSON.parse(read("tests/golden/cross-target-cases.json"));
const expected = new Map(JSON.parse(read("tests/golden/cross-target.json")).map((r) => [r.case, r]));
const files = readdirSync(new URL("tests/data/mcp/", root)).filter((f) => f.endsWith(".json")).sort();

function registries() {
  const out = [["embedded", ToolRegistry.default()]];
  for (const f of files) out.push([`mcp:${f.slice(0, -5)}`, ToolRegistry.fromJson(read(`tests/data/mcp/${f}`))]);
  let all = ToolRegistry.default();
  for (const f of files) {
    const name = f.slice(0, -5);
    const text = read(`tests/data/mcp/${f}`);
    out.push([`embedded+${name}`, ToolRegistry.default().mergeMcpServer(name, text)]);
    all = all.mergeMcpServer(name, text);
  }
  out.push(["all", all]);
  return out;
}

const sha256 = (s) => "sha256:" + createHash("sha256").update(s, "utf8").digest("hex");

test("wasm payload fingerprints equal the native build's for every case", () => {
  let checked = 0;
  for (const [rname, registry] of registries()) {
    cases.overrides.forEach((override, oi) => {
      cases.variants.forEach((variant, vi) => {
        const { loadFirstDeferred, ...options } = variant;
        if (loadFirstDeferred) options.loaded = registry.expand(override).deferred.slice(0, 1);
        const id = `${rname}|o${oi}|v${vi}`;
        const want = expected.get(id);
        assert.ok(want, `no native golden for ${id}`);
        const payload = registry.payload(override, options);
        assert.equal(payload.fingerprint, want.fingerprint, id);
        assert.equal(Buffer.byteLength(payload.json, "utf8"), want.bytes, id);
        assert.equal(sha256(payload.json), payload.fingerprint, `${id}: fingerprint is not of the bytes`);
        assert.equal(fingerprint(payload.catalog), want.catalog, `${id} catalog`);
        // expand() reports the same fingerprint as payload().
        assert.equal(registry.expand(override, options).fingerprint, want.fingerprint, id);
        checked++;
      });
    });
  }
  assert.equal(checked, expected.size);
});

test("golden payload files of the embedded registry match byte for byte", () => {
  const r = ToolRegistry.default();
  for (const provider of ["anthropic", "openai-chat", "openai-responses"]) {
    const golden = read(`tests/golden/${provider}.default.json`);
    assert.equal(r.payload(null, { provider }).json, golden, provider);
  }
});
