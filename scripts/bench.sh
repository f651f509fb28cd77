#!/usr/bin/env bash
# Benchmarks (figures, not pass/fail): native criterion benches per registry size, then wasm
# vs plain JS in Node on the same generated registries. Results: bench-results/*.json.
#   scripts/bench.sh          everything
#   scripts/bench.sh js       only the Node benchmark (needs pkg/ from scripts/build-wasm.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
mkdir -p bench-results
for n in 50 1000 10000; do
  [ -f "bench-results/registry-$n.json" ] || cargo run --quiet --release --example gen_registry -- "$n" 42 > "bench-results/registry-$n.json"
done
if [ "${1:-all}" != js ]; then
  log "cargo bench (criterion)"
  cargo bench --bench expansion -- --noplot >/dev/null
  node benches/js/collect-criterion.mjs
  log "token counters: estimator vs exact BPE"
  cargo bench --features exact-tokens --bench counters -- --noplot 2>&1 | grep -E "^count_|thrpt|counts"
  log "cache report: time against turns"
  cargo bench --bench cache_report

fi
setup_rust
setup_node
[ -f pkg/web/tool_intent_bg.wasm ] || bash scripts/build-wasm.sh core
log "wasm vs plain JS (Node $(node --version))"
node benches/js/wasm-vs-js.mjs bench-results/registry-{50,1000,10000}.json
