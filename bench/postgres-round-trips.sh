#!/usr/bin/env bash
# What a PostgreSQL write costs by round trip rather than by statement (BENCHMARKS.md, scale-out, "Round trips,
# not statements"). The same eight single-row inserts, four ways, each a transaction, one client:
#   separate   BEGIN, 8 INSERTs, COMMIT, each waiting for its answer (10 round trips)
#   pipelined  the same 10 statements sent together (pgbench \startpipeline; 1 round trip)
#   function   one call of a PL/pgSQL function doing the 8 inserts (1 statement)
#   multi-row  one INSERT … SELECT of 8 rows (1 statement)
# Prints the latency and the server's CPU per transaction. The server must run on this machine (its CPU is
# read from /proc: the backends' own counters, and the postmaster's children counters for ended backends).
# Usage: bench/postgres-round-trips.sh postgres://user@127.0.0.1:5433/postgres [transactions]
set -euo pipefail

URL="${1:?usage: $0 POSTGRES_URL [transactions]}"
COUNT="${2:-4000}"
BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
DB="troupe_round_trips_$$"
WORK="$(mktemp -d)"
ADMIN=("$BIN/psql" "$URL" -qAt -v ON_ERROR_STOP=1)
DB_URL="$("$BIN/psql" "$URL" -qAt -c "SELECT '${URL%/*}/' || '$DB'")"

cleanup() {
  "${ADMIN[@]}" -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

"${ADMIN[@]}" -c "CREATE DATABASE $DB"
"$BIN/psql" "$DB_URL" -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE ev (id bigserial PRIMARY KEY, run_id text NOT NULL, seq int NOT NULL, type text NOT NULL,
                 payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX ON ev (run_id, seq);
CREATE INDEX ON ev (created_at);
CREATE FUNCTION ev8(r text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..8 LOOP
    INSERT INTO ev (run_id, seq, type, payload) VALUES (r, i, 'step', '{"a":1}');
  END LOOP;
END $$;
SQL

inserts() {
  echo 'BEGIN;'
  for i in 1 2 3 4 5 6 7 8; do
    echo "INSERT INTO ev (run_id, seq, type, payload) VALUES (:r, $i, 'step', '{\"a\":1}');"
  done
  echo 'COMMIT;'
}
{ echo '\set r random(1, 1000000)'; inserts; } >"$WORK/separate.sql"
{ echo '\startpipeline'; echo '\set r random(1, 1000000)'; inserts; echo '\endpipeline'; } >"$WORK/pipelined.sql"
printf '%s\n' '\set r random(1, 1000000)' 'SELECT ev8(:r::text);' >"$WORK/function.sql"
printf '%s\n' '\set r random(1, 1000000)' \
  "INSERT INTO ev (run_id, seq, type, payload) SELECT :r, g, 'step', '{\"a\":1}' FROM generate_series(1, 8) g;" \
  >"$WORK/multi-row.sql"

# The first line of postmaster.pid (reading the data directory's setting needs a superuser, as creating the
# database does).
POSTMASTER="$(head -n 1 "$("${ADMIN[@]}" -c 'SHOW data_directory')/postmaster.pid")"
TICK_MS="$(echo "1000 / $(getconf CLK_TCK)" | bc -l)"
# Clock ticks of the server: every live process of its user, plus what its ended children used.
server_ticks() {
  local total=0 pid ticks
  for pid in $(pgrep -u "$(ps -o user= -p "$POSTMASTER")" postgres); do
    ticks="$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)"
    total=$((total + ticks))
  done
  echo $((total + $(awk '{print $16 + $17}' "/proc/$POSTMASTER/stat")))
}

printf '%-10s %12s %20s\n' way 'latency ms' 'server CPU µs / tx'
for way in separate pipelined function multi-row; do
  before="$(server_ticks)"
  latency="$("$BIN/pgbench" "$DB_URL" -n -M prepared -c 1 -t "$COUNT" -f "$WORK/$way.sql" 2>&1 |
    awk '/latency average/ {print $4}')"
  sleep 0.3
  after="$(server_ticks)"
  printf '%-10s %12s %20.0f\n' "$way" "$latency" "$(echo "($after - $before) * $TICK_MS * 1000 / $COUNT" | bc -l)"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
