#!/usr/bin/env bash
# Builds the two npm packages' wasm and glue:
#   pkg/                 package `tool-intent` (this directory): the estimator, no vocabulary
#   npm/exact/pkg/       package `tool-intent-exact` (npm/exact/): the same API plus the exact
#                        o200k/cl100k counters (~6.7 MB of wasm a core user never downloads)
#   npm/hybrid/pkg/      package `tool-intent-hybrid` (npm/hybrid/): the same API plus the
#                        hybrid search ranker (its 8 MB embedding table)
# Each gets pkg/web (wasm-bindgen --target web: the ES module, its .d.ts and the one .wasm) and
# pkg/node (--target nodejs: CommonJS glue that reads ../web/tool_intent_bg.wasm, so the
# package ships each module once). The exact and hybrid packages' js/ entries and licences are
# copied from here: the packages differ only in their wasm.
#
# The wasm binding is the crate bindings/wasm (tool-intent-wasm); its cdylib is asked for here
# (`cargo rustc --crate-type cdylib`) rather than declared, so a native `cargo test` of the
# workspace does not link one. wasm-bindgen is the CLI
# pinned to the crate's version (scripts/setup.sh); wasm-opt -Oz comes from the npm package
# `binaryen` (Debian's 108 breaks Node 20).
# Usage: scripts/build-wasm.sh [all|core|exact|hybrid]
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_OPT=node_modules/.bin/wasm-opt
[ -x "$WASM_OPT" ] || { echo "build-wasm: $WASM_OPT missing; run npm ci first" >&2; exit 1; }
command -v wasm-bindgen >/dev/null || { echo "build-wasm: wasm-bindgen missing; run scripts/setup.sh" >&2; exit 1; }
[ -d "$(rustc --print sysroot)/lib/rustlib/src/rust/library" ] ||
  { echo "build-wasm: the rust-src component is missing (the module compiles the standard library); run scripts/setup.sh" >&2; exit 1; }
# Rust's wasm32 target emits these proposals by default; wasm-opt must accept them.
OPT_FEATURES=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd)

# Size over speed for the browser bundle (the native release profile is opt-level 3).
export CARGO_PROFILE_RELEASE_OPT_LEVEL=z
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')

build() { # out-dir [cargo args...]
  local out=$1
  shift
  # serde_json at "z" too (Cargo.toml keeps "s" for the native JSON writer): loading reads
  # registries with our own reader, so size wins here (-1.3 KB gzip, previews as fast).
  # 128-bit SIMD (every engine since 2023: Chrome 91, Firefox 89, Safari 16.4, Node 16.4) makes
  # the module 2 KB gzip smaller (LLVM moves and compares 16 bytes at a time); without
  # relaxed-simd every lane is IEEE-exact, so results keep their bits (the goldens say so).
  # The standard library is compiled here (`-Zbuild-std`, from the rust-src component that
  # scripts/setup.sh adds) with `panic=immediate-abort`: a panic in the module is a trap either
  # way (no message reaches JS without a panic hook, and the library installs none), and the
  # prebuilt std carries the code that formats panic messages (`str` slicing errors, `char`'s
  # `Debug`, Unicode printable tables): -10.3 KB gzip, previews and loads as fast. Both are
  # unstable flags, hence RUSTC_BOOTSTRAP=1 for this one command; a toolchain that renames
  # them fails this build loudly (docs/benchmarks.md, "Package size").
  # Three more for size, each measured on the core module (docs/benchmarks.md, "Package
  # size"): `-Zcross-crate-inline-threshold=always` makes every function of every crate
  # (std, serde_json, sha2 too) inlinable across crates, as `#[inline]` does, -1.7 KB gzip
  # (measured; why it shrinks the module was not traced); without
  # reference types wasm-bindgen keeps JS values in a JS-side table instead of an externref
  # table and its export shims shrink, -1.2 KB; wasm-opt's `--low-memory-unused` folds
  # `load(p + C)` into `load offset=C (p)`, which differ only when p + C wraps past 4 GiB, -1.2
  # KB (binaryen's OptimizeAddedConstants pass; Rust never forms such an address: the stack
  # sits below 1 MiB and grows down to 0, data and heap above it). The preview and the load
  # measured as fast or faster with all three (benches/js/wasm-vs-js.mjs).
  RUSTC_BOOTSTRAP=1 cargo rustc --quiet -p tool-intent-wasm --lib --release --target wasm32-unknown-unknown --crate-type cdylib \
    -Zbuild-std=std,panic_abort \
    --config 'profile.release.package.serde_json.opt-level="z"' \
    --config 'target.wasm32-unknown-unknown.rustflags=["-C", "target-feature=+simd128,-reference-types", "-Zunstable-options", "-Cpanic=immediate-abort", "-Zcross-crate-inline-threshold=always"]' "$@"
  local wasm="$TARGET_DIR/wasm32-unknown-unknown/release/tool_intent_wasm.wasm"
  rm -rf "$out/web" "$out/node"
  wasm-bindgen --target web --out-dir "$out/web" --out-name tool_intent "$wasm"
  wasm-bindgen --target nodejs --out-dir "$out/node" --out-name tool_intent "$wasm"
  # The classes declare [Symbol.dispose] (`using`): bring its lib along, so a consumer on
  # lib ES2022 type-checks without skipLibCheck.
  sed -i '1i /// <reference lib="esnext.disposable" />' "$out/web/tool_intent.d.ts" "$out/node/tool_intent.d.ts"
  # -Oz twice: the second pass finds what the first one's inlining opened up (-0.4 KB gzip).
  "$WASM_OPT" -Oz --low-memory-unused -Oz --strip-debug --strip-producers "${OPT_FEATURES[@]}" "$out/web/tool_intent_bg.wasm" -o "$out/web/tool_intent_bg.wasm"

  # Node's CommonJS glue loads the browser build's module (the two are the same bytes: the
  # targets differ only in JS glue). Fail loudly if wasm-bindgen changes the line we rewrite.
  local glue="$out/node/tool_intent.cjs"
  mv "$out/node/tool_intent.js" "$glue" # the package is "type": "module"
  grep -q '^const wasmPath = `${__dirname}/tool_intent_bg.wasm`;$' "$glue" ||
    { echo "build-wasm: wasmPath line not found in $glue (wasm-bindgen glue changed)" >&2; exit 1; }
  sed -i 's|^const wasmPath = `${__dirname}/tool_intent_bg.wasm`;$|const wasmPath = `${__dirname}/../web/tool_intent_bg.wasm`;|' "$glue"
  # js/node.cjs hands these exports out from init()/initSync(), as the ES entries do.
  echo 'Object.defineProperty(exports, "__wasmExports", { value: wasm });' >>"$glue"
  # CommonJS types: the browser build's declarations (js/node.cjs provides init and initSync
  # too) as a .d.cts, so `require` resolves them as CommonJS.
  cp "$out/web/tool_intent.d.ts" "$out/node/tool_intent.d.cts"
  rm -f "$out/node/tool_intent.d.ts" "$out/node/tool_intent_bg.wasm" "$out/node/tool_intent_bg.wasm.d.ts"
}

what=${1:-all} # all | core | exact | hybrid
case "$what" in all | core | exact | hybrid) ;; *) echo "build-wasm: unknown build $what (all, core, exact, hybrid)" >&2; exit 2 ;; esac
if [ "$what" = all ] || [ "$what" = core ]; then
  build pkg
fi
for flavour in exact hybrid; do
  [ "$what" = all ] || [ "$what" = "$flavour" ] || continue
  feature=$([ "$flavour" = exact ] && echo exact-tokens || echo hybrid)
  speed=()
  # The hybrid module is 8 MB of table: its code at opt-level 3 (+57 KB gzip) runs a warm
  # query in 0.62 ms instead of 0.83 and indexes 1,011 tools in 43 ms instead of 58.
  # The model ranker's forward pass (tool-intent-minilm) at 3 too: at "z" a warm model query
  # took 127 ms in Node instead of 5x fewer.
  [ "$flavour" = hybrid ] && speed=(--config 'profile.release.package.tool-intent.opt-level=3'
    --config 'profile.release.package.tool-intent-minilm.opt-level=3')
  build "npm/$flavour/pkg" --features "$feature" "${speed[@]}"
  rm -rf "npm/$flavour/js"
  cp -r js "npm/$flavour/js"
  cp LICENSE-MIT LICENSE-APACHE "npm/$flavour/"
done

for f in pkg/web npm/exact/pkg/web npm/hybrid/pkg/web; do
  [ -f "$f/tool_intent_bg.wasm" ] || continue
  raw=$(stat -c %s "$f/tool_intent_bg.wasm")
  # -n: no file name or time in the header (20 bytes here), as tests/js/size.test.mjs measures.
  gz=$(gzip -9 -n -c "$f/tool_intent_bg.wasm" | wc -c)
  echo "build-wasm: $f/tool_intent_bg.wasm $raw bytes, $gz bytes gzip -9"
done
