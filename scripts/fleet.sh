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

start_postgres_cluster fleet-pg

log "fleet: PostgreSQL store"
"$bin/fleet" --store "$PG_URL" "$@"

log "fleet: SQLite store"
sqlite="$PG_DIR/fleet.sqlite"
"$bin/fleet" --store "$sqlite" "$@"

log "fleet: a new process's first model tool_search, with the embeddings shared"
"$bin/model_first_search"
