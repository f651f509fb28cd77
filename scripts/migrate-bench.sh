#!/usr/bin/env bash
# The migration benchmark on SQLite and on a throwaway PostgreSQL cluster (figures, not
# pass/fail): 100,000 and 1,000,000 rows unless sizes are given.
#   scripts/migrate-bench.sh [ROWS ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
setup_postgres
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/tool-intent-pg-bench.XXXXXX)
port=$((20000 + $$ % 20000))
as_pg=()
if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; as_pg=(runuser -u postgres --); fi
(cd / && "${as_pg[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null)
(cd / && "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -o "-k $dir -h '' -p $port -F" -l "$dir/log" -w start >/dev/null)
trap '(cd / && "${as_pg[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1); rm -rf "$dir"' EXIT
cargo bench --quiet -p tool-intent-migrate --bench migrate -- "$@" --postgres "postgresql://postgres@localhost/postgres?host=$dir&port=$port"
