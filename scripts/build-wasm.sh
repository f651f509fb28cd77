#!/usr/bin/env bash
# Builds the npm package into pkg/:
#   pkg/web, pkg/node             the core package (fast estimator, no vocabulary)
#   pkg/exact-web, pkg/exact-node the same API plus the exact o200k/cl100k counters
# wasm-pack runs with --mode no-install (it must never download a tool) and wasm-opt off;
# Usage: scripts/build-wasm.sh [all|core|exact]. wasm-opt -Oz then comes from the npm package `binaryen` (Debian's 108 breaks Node 20).
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_OPT=node_modules/.bin/wasm-opt
[ -x "$WASM_OPT" ] || { echo "build-wasm: $WASM_OPT missing; run npm ci first" >&2; exit 1; }
# Rust's wasm32 target emits these proposals by default; wasm-opt must accept them.
OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue)

# Size over speed for the browser bundle (the native release profile is opt-level 3).
export CARGO_PROFILE_RELEASE_OPT_LEVEL=z
export CARGO_PROFILE_RELEASE_PANIC=abort

build() { # out-dir target [cargo args...]
  local out=$1 target=$2
  shift 2
  wasm-pack --quiet build --release --mode no-install --no-pack --target "$target" \
    --out-dir "$out" --out-name tool_intent . -- "$@"
  "$WASM_OPT" -Oz --strip-debug --strip-producers "${OPT_FEATURES[@]}" "$out/tool_intent_bg.wasm" -o "$out/tool_intent_bg.wasm"
  rm -f "$out/.gitignore" "$out/package.json" "$out/README.md"
  if [ "$target" = nodejs ]; then
    # The root package is "type": "module"; the CommonJS build gets the .cjs extension.
    mv "$out/tool_intent.js" "$out/tool_intent.cjs"
  fi
}

what=${1:-all}   # all | core | exact
if [ "$what" != exact ]; then
  build pkg/web web
  build pkg/node nodejs
fi
if [ "$what" != core ]; then
  build pkg/exact-web web --features exact-tokens
  build pkg/exact-node nodejs --features exact-tokens
fi

for f in pkg/web pkg/exact-web; do
  [ -f "$f/tool_intent_bg.wasm" ] || continue
  raw=$(stat -c %s "$f/tool_intent_bg.wasm")
  gz=$(gzip -9 -c "$f/tool_intent_bg.wasm" | wc -c)
  echo "build-wasm: $f/tool_intent_bg.wasm $raw bytes, $gz bytes gzip -9"
done
