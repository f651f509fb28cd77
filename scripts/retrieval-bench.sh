#!/usr/bin/env bash
# Tool-retrieval benchmark (figures, not pass/fail): tool_search against the BM25 baseline
# (PyPI rank-bm25) on the Berkeley Function Calling Leaderboard data. Nothing is downloaded
# here; point it at an unpacked bfcl-eval wheel:
#
#   pip download bfcl-eval --no-deps -d /tmp/bfcl && (cd /tmp/bfcl && unzip -q bfcl_eval-*.whl)
#   scripts/retrieval-bench.sh /tmp/bfcl/bfcl_eval/data
#
# Prints Recall@1, Recall@5, MRR@10 and query latency for both rankings on the four
# non-live single-turn categories (the README's table), then on live_simple + live_multiple
# (a held-out check: the ranking's weights were chosen on the first set). Results also go to
# bench-results/retrieval.json. rank-bm25 is installed into a project-local .venv-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
data=${1:?usage: scripts/retrieval-bench.sh BFCL_DATA_DIR, the bfcl_eval/data folder of the unpacked wheel}
[ -d "$data/possible_answer" ] || { echo "retrieval-bench: $data has no possible_answer/; expected bfcl_eval/data" >&2; exit 2; }
if [ ! -x .venv-bench/bin/python ] || ! .venv-bench/bin/python -c "import rank_bm25" 2>/dev/null; then
  log "python3 -m venv .venv-bench; pip install rank-bm25"
  python3 -m venv .venv-bench
  .venv-bench/bin/pip install --quiet "rank-bm25==0.2.2"
fi
cargo build --quiet --release --example retrieval
work=target/retrieval
mkdir -p "$work" bench-results
results=()
for set in "default" "live_simple,live_multiple"; do
  dir="$work/${set//,/+}"
  if [ "$set" = default ]; then
    .venv-bench/bin/python benches/retrieval/bfcl.py build "$data" "$dir"
  else
    .venv-bench/bin/python benches/retrieval/bfcl.py build "$data" "$dir" "$set"
  fi
  log "$set: BM25 baseline (rank-bm25)"
  bm25=$(.venv-bench/bin/python benches/retrieval/bfcl.py bm25 "$dir")
  log "$set: tool-intent"
  ours=$(target/release/examples/retrieval "$dir/pool.json" "$dir/queries.json")
  results+=("{\"set\":\"$set\",\"bm25\":$bm25,\"ours\":$ours}")
done
joined=$(IFS=,; echo "${results[*]}")
echo "[$joined]" > bench-results/retrieval.json
node benches/retrieval/table.mjs bench-results/retrieval.json
