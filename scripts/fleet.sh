#!/usr/bin/env bash
# The fleet test (issue 49): 4 `fleet_server` processes share a registry version store while
# 200 sessions take 20 turns each, every request sent to a random process; a publisher rolls
# 5 registry versions and one process is killed with SIGKILL and restarted. Run once on a
# throwaway PostgreSQL cluster (the fleet's store) and once on a SQLite file (the processes of
# one machine). Fails on any request whose tool bytes differ from its turn's first, any session
# whose version goes back, any lost turn, any late adoption, any rewrite with change messages.
# Then what a new process's first model tool_search costs with the embeddings other processes
# shared through the store (examples/model_first_search.rs; all-MiniLM-L6-v2's weights from
# setup_model). Writes bench-results/fleet.json (one entry per store, and modelFirstSearch).
# Usage: scripts/fleet.sh [--sessions N] [--turns N] [--processes N] (passed to the driver)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/setup.sh
source scripts/setup.sh
setup_postgres
setup_model

cargo build --quiet --release -p tool-intent-store --features postgres,model --examples
bin=target/release/examples

pg=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/tool-intent-fleet-pg.XXXXXX)
port=$((20000 + $$ % 20000))
as_pg=()
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; as_pg=(runuser -u postgres --); fi
(cd / && "${as_pg[@]}" "$pg/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null)
(cd / && "${as_pg[@]}" "$pg/pg_ctl" -D "$dir/data" -o "-k $dir -h '' -p $port -F" -l "$dir/log" -w start >/dev/null)
trap '(cd / && "${as_pg[@]}" "$pg/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1); rm -rf "$dir"' EXIT

log "fleet: PostgreSQL store"
"$bin/fleet" --store "postgresql://postgres@localhost/postgres?host=$dir&port=$port" "$@"

log "fleet: SQLite store"
sqlite="$dir/fleet.sqlite"
"$bin/fleet" --store "$sqlite" "$@"

log "fleet: a new process's first model tool_search, with the embeddings shared"
"$bin/model_first_search"
