#!/usr/bin/env bash
# The main job: a preview of the embedded registry with the native CLI, then (with --web)
# the demo page served on localhost. Installs what it needs first (see scripts/setup.sh).
#   scripts/demo.sh            CLI preview (extra arguments go to `tool-intent preview`)
#   scripts/demo.sh --web      also build the wasm package and serve www/ on http://127.0.0.1:5173
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

web=0
args=()
for a in "$@"; do
  if [ "$a" = --web ]; then web=1; else args+=("$a"); fi
done

cargo run --quiet --release -p tool-intent-cli --features exact-tokens -- preview --counter o200k "${args[@]}"
if [ "$web" = 1 ]; then
  setup_rust
  setup_node
  bash scripts/build-wasm.sh core
  log "serving the demo page on http://127.0.0.1:5173 (Ctrl-C to stop)"
  exec npx vite www --host 127.0.0.1 --port 5173 --strictPort
fi
