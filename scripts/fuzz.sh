#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time: scripts/fuzz.sh [SECONDS_PER_TARGET]
# (default 30; `smoke` = 10). Seeds come from fuzz/seeds/<target>/; the corpus grows in
# fuzz/corpus/ (ignored by git). A crash fails the script and leaves its input in
# fuzz/artifacts/<target>/: copy it to tests/fuzz-crashers/ and fix the bug.
# The machine has only the stable toolchain; RUSTC_BOOTSTRAP lets it take cargo-fuzz's
# -Z sanitizer flags.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-30}
[ "$secs" = smoke ] && secs=10
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "==> cargo install cargo-fuzz (once)" >&2
  cargo install cargo-fuzz --version 0.13.2
fi
export RUSTC_BOOTSTRAP=1
targets=(registry_json override_json session_config search_query mcp_server_list turn_state call_options cache_script model_weights)
cargo fuzz build --fuzz-dir fuzz -O >/tmp/tool-intent-fuzz-build.log 2>&1 || { tail -n 30 /tmp/tool-intent-fuzz-build.log; echo "fuzz: build failed" >&2; exit 1; }
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  cp -n fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
  echo "==> fuzz $t for ${secs}s" >&2
  log=$(mktemp)
  if ! cargo fuzz run --fuzz-dir fuzz -O "$t" "fuzz/corpus/$t" -- -max_total_time="$secs" -max_len=8192 -rss_limit_mb=2048 >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "fuzz: $t crashed; input in fuzz/artifacts/$t/" >&2
    exit 1
  fi
  grep -E "^#[0-9]+.*(DONE|pulse)" "$log" | tail -n 1 || true
  rm -f "$log"
done
echo "fuzz: ${#targets[@]} targets x ${secs}s, no crash"
