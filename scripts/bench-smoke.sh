#!/usr/bin/env bash
# Every benchmark once at a small size, so a broken benchmark fails CI instead of its next
# reader (scripts/test.sh runs this last). The figures print but judge nothing: the sizes are
# too small to mean anything. The full runs are scripts/bench.sh, scripts/migrate-bench.sh and
# scripts/retrieval-bench.sh.
#   - the core's benches (`cargo test --benches`): the criterion ones (expansion,
#     live_servers, counters, hybrid, model) run each benchmark once, the model's on its real
#     weights; the cache report at 50 / 100 / 200 turns (BENCH_SMOKE=1);
#   - the migration at 1,000 rows on SQLite and a throwaway PostgreSQL cluster;
#   - wasm vs plain JS, and the hybrid and model rankers in Node, on a 60-tool registry;
#   - the model ranker in headless Chromium;
#   - the Python per-turn and thread benchmarks on the 60-tool registry.
# Not here: scripts/retrieval-bench.sh, whose input is public data downloaded at benchmark
# time (BFCL from PyPI, MetaTool from GitHub); its native and wasm latency parts are the
# hybrid and model benches above.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_rust
setup_node
setup_postgres
setup_python
setup_model
mkdir -p target/bench-smoke
out=target/bench-smoke
FEATURES=exact-tokens,hybrid,model

log "bench smoke: registries of 60 tools"
cargo run --quiet --example gen_registry -- 60 42 >"$out/registry-60.json"

log "bench smoke: the core's benches, each benchmark once (the cache report at 50-200 turns)"
BENCH_SMOKE=1 cargo test --benches --features "$FEATURES"

log "bench smoke: migration, 1,000 rows"
bash scripts/migrate-bench.sh 1000

[ -f pkg/web/tool_intent_bg.wasm ] && [ -f npm/hybrid/pkg/web/tool_intent_bg.wasm ] || bash scripts/build-wasm.sh
log "bench smoke: wasm vs plain JS (Node $(node --version))"
node benches/js/wasm-vs-js.mjs "$out/registry-60.json"
log "bench smoke: hybrid and model rankers in Node"
node benches/js/hybrid-node.mjs "$out/registry-60.json"
node benches/js/model-node.mjs "$out/registry-60.json"
log "bench smoke: model ranker in Chromium"
node benches/js/model-chrome.mjs

# After scripts/test.sh the module is the debug build `maturin develop` made for the tests:
# its per-turn ratio (~29x) says the script runs, not how fast Python is (1.29-1.35x in a
# release build, docs/surfaces.md).
log "bench smoke: Python (after scripts/test.sh a debug build: its figures are not the release ones)"
.venv-py/bin/python benches/python/per_turn.py "$out/registry-60.json"
.venv-py/bin/python benches/python/threads.py "$out/registry-60.json"
