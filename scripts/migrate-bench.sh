#!/usr/bin/env bash
# The migration benchmark on SQLite and on a throwaway PostgreSQL cluster (figures, not
# pass/fail): 100,000 and 1,000,000 rows unless sizes are given.
#   scripts/migrate-bench.sh [ROWS ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_postgres
start_postgres_cluster pg-bench
cargo bench --quiet -p tool-intent-migrate --bench migrate -- "$@" --postgres "$PG_URL"
