#!/usr/bin/env bash
# Prints what a user of the published packages gets, and fails if a packaging target is missed:
#   - the crate: `cargo package` (verified: the .crate builds on its own), its file count and
#     size; crates a default-feature library user compiles (`cargo tree -e normal`, target <= 25);
#     a clean debug build of the library in a fresh target dir (target <= 15 s on the 2-core CI
#     machine; printed, not enforced); that neither clap, rusqlite nor wasm-bindgen is among them;
#   - the npm packages: `npm pack` of tool-intent, tool-intent-exact and tool-intent-hybrid (packed and unpacked
#     sizes, file counts; tool-intent unpacked target <= 1 MB) and that each .wasm ships once.
# Needs the wasm builds (scripts/build-wasm.sh). Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
check() { # label ok(0/1) text
  if [ "$2" = 1 ]; then echo "  ok    $1: $3"; else echo "  MISS  $1: $3"; fail=1; fi
}
le() { [ "$1" -le "$2" ] && echo 1 || echo 0; }

echo "crate tool-intent"
# Its own target dir: the verify build records the packaged copies of the sources as the
# library's inputs, and in the shared target/ that made later builds of the working tree
# look fresh after source edits.
# With its data and encoder crates: the `hybrid` and `model` features depend on
# tool-intent-hybrid-table and tool-intent-minilm by path and
# version, which only a multi-package `cargo package` resolves before it is published.
cargo package -p tool-intent -p tool-intent-hybrid-table -p tool-intent-minilm --allow-dirty --quiet --target-dir target/package-verify 2>/dev/null
crate=$(ls target/package-verify/package/tool-intent-0*.crate | tail -1)
files=$(tar tzf "$crate" | grep -vc '/$')
check "cargo package (verified build of the .crate)" 1 "$crate, $files files, $(stat -c %s "$crate") bytes"
table=$(ls target/package-verify/package/tool-intent-hybrid-table-*.crate | tail -1)
check "cargo package tool-intent-hybrid-table (the hybrid ranker's data)" "$(le "$(stat -c %s "$table")" 10485760)" "$table, $(stat -c %s "$table") bytes (crates.io's limit: 10 MiB)"
tar tzf "$crate" | grep -q 'minilm-static\.bin' && check "no embedding table in tool-intent" 0 "minilm-static.bin packaged" ||
  check "no embedding table in tool-intent" 1 "it is in tool-intent-hybrid-table"
tar tzf "$crate" | grep -Eq '/(www|benches|scripts|tests|\.ci|python|npm|crates|bindings)/|package-lock\.json' &&
  check "crate contents" 0 "demo page, benchmarks, scripts, tests or npm files packaged" ||
  check "crate contents" 1 "library sources, licences, README only"

deps=$(cargo tree -e normal --prefix none | sed 's/ (\*)$//' | sort -u)
n=$(wc -l <<<"$deps")
check "default-feature dependency crates (cargo tree -e normal, incl. tool-intent)" "$(le "$n" 25)" "$n (target <= 25)"
bindings='^(tool-intent-(wasm|cli|migrate|python)|clap|rusqlite|libsqlite3-sys|postgres|wasm-bindgen|js-sys|pyo3) '
if grep -Eq "$bindings" <<<"$deps"; then
  check "no binding crate (wasm, CLI, migration, Python) in the library's tree" 0 "$(grep -E "$bindings" <<<"$deps" | tr '\n' ' ')"
else
  check "no binding crate (wasm, CLI, migration, Python) in the library's tree" 1 "none of them"
fi
fresh=$(mktemp -d)
start=$(date +%s.%N)
cargo build --lib --quiet --target-dir "$fresh"
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
kinds=$(ls "$fresh/debug/" | grep -E '^libtool_intent\.(rlib|so)$' | tr '\n' ' ')
rm -rf "$fresh"
# Printed, not enforced: a timing is a benchmark figure, and CI machines vary.
met=$(awk -v s="$secs" 'BEGIN { print (s <= 15) ? "met" : "NOT met" }')
echo "  time  clean debug build of the library: $secs s (target <= 15 s: $met), artefacts: $kinds"
[ "$kinds" = "libtool_intent.rlib " ] && check "no cdylib for library users" 1 "rlib only" || check "no cdylib for library users" 0 "$kinds"

for dir in . npm/exact npm/hybrid; do
  json=$(cd "$dir" && npm pack --dry-run --json 2>/dev/null)
  read -r name size unpacked count wasm <<<"$(node -e '
    const [p] = JSON.parse(process.argv[1]);
    const wasm = p.files.filter((f) => f.path.endsWith(".wasm")).length;
    console.log(p.name, p.size, p.unpackedSize, p.entryCount, wasm);' "$json")"
  echo "npm $name"
  check "tarball" 1 "$count files, $size bytes packed, $unpacked bytes unpacked"
  check "one copy of the .wasm" "$([ "$wasm" = 1 ] && echo 1 || echo 0)" "$wasm .wasm file(s)"
  # A package page renders the README: every relative link of a packaged document must reach
  # a packaged file (the guides ship with the package).
  broken=$(cd "$dir" && node -e '
    const fs = require("node:fs"), path = require("node:path");
    const [p] = JSON.parse(process.argv[1]);
    const files = new Set(p.files.map((f) => f.path));
    const out = [];
    for (const doc of [...files].filter((f) => f.endsWith(".md"))) {
      for (const m of fs.readFileSync(doc, "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split("#")[0];
        if (!target || /^[a-z]+:/.test(target)) continue;
        const file = path.posix.normalize(path.posix.join(path.posix.dirname(doc), target));
        if (!files.has(file)) out.push(`${doc} -> ${m[1]}`);
      }
    }
    console.log(out.join(", "));' "$json")
  check "links in the packaged documents resolve" "$([ -z "$broken" ] && echo 1 || echo 0)" "${broken:-every relative link reaches a packaged file}"
  if [ "$name" = tool-intent ]; then
    check "core install size" "$(le "$unpacked" 1048576)" "$unpacked bytes unpacked (target <= 1 MB)"
  fi
done

[ "$fail" = 0 ] || { echo "package-targets: a target is missed" >&2; exit 1; }
echo "package-targets: all targets met"
