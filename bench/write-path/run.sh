#!/bin/sh
# The write path of POST /v1/suppliers, counted without wall-clock time (docs/decisions.md P230; README.md here).
# Usage: bench/write-path/run.sh URL STAGE [N]    blocks and WAL per statement, then per transaction
#        bench/write-path/run.sh --print STAGE    the pgbench script of STAGE, for another tool
#   STAGE  now, 0021 (the event as at migration 0021) or before-26 (no event, nor the later supplier indexes)
#   URL    a PostgreSQL server whose shared_preload_libraries has pg_stat_statements (a scratch cluster)
# Makes a scratch database migrated by `tprm migrate` (dist/ built), with before-26.sql applied for that stage,
# runs the request N times (2,000 by default) after 300 to warm up, and reads pg_stat_statements.
set -eu
HERE=$(dirname "$0")

script() {
  case $1 in
    now) cat "$HERE/head.sql" "$HERE/event.sql" "$HERE/tail.sql" ;;
    0021) cat "$HERE/head.sql" "$HERE/event-0021.sql" "$HERE/tail.sql" ;;
    before-26) cat "$HERE/head.sql" "$HERE/tail.sql" ;;
    *) echo "unknown stage: $1 (now, 0021 or before-26)" >&2; exit 2 ;;
  esac
}

if [ "$1" = --print ]; then script "$2"; exit 0; fi
URL=$1
STAGE=$2
N=${3:-2000}
DB=write_path_$$
SCRIPT=$(mktemp)
script "$STAGE" > "$SCRIPT"
psql -q "$URL/postgres" -c "create database $DB"
trap 'rm -f "$SCRIPT"; psql -q "$URL/postgres" -c "drop database if exists $DB with (force)"' EXIT
DATABASE_URL="$URL/$DB" node "$HERE/../../dist/src/cli/main.js" migrate >/dev/null
psql -q "$URL/$DB" -f "$HERE/setup.sql" -c 'create extension if not exists pg_stat_statements'
if [ "$STAGE" = before-26 ]; then psql -q "$URL/$DB" -f "$HERE/before-26.sql"; fi
pgbench -n -M prepared -t 300 -f "$SCRIPT" "$URL/$DB" >/dev/null
psql -q "$URL/$DB" -c 'select pg_stat_statements_reset()' >/dev/null
pgbench -n -M prepared -t "$N" -f "$SCRIPT" "$URL/$DB" | grep -E 'processed|error'
psql "$URL/$DB" -c "
  select left(regexp_replace(query, '\s+', ' ', 'g'), 60) as statement, calls / $N as per_request,
         round((shared_blks_hit + shared_blks_read)::numeric / $N, 1) as blocks,
         round(wal_records::numeric / $N, 1) as wal_records, round(wal_bytes::numeric / $N) as wal_bytes
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
   where d.datname = '$DB' and calls >= $N order by s.queryid"
psql -At "$URL/$DB" -c "
  select 'per transaction: blocks ' || round(sum(shared_blks_hit + shared_blks_read)::numeric / $N, 1)
         || ', WAL records ' || round(sum(wal_records)::numeric / $N, 1) || ', WAL bytes ' || round(sum(wal_bytes)::numeric / $N)
    from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = '$DB'"
