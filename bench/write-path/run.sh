#!/bin/sh
# The write path of POST /v1/suppliers, counted without wall-clock time (docs/decisions.md P230; README.md here).
# Usage: bench/write-path/run.sh URL SCRIPT [N]
#   URL    a PostgreSQL server whose shared_preload_libraries has pg_stat_statements (a scratch cluster)
#   SCRIPT post-supplier.sql (now), post-supplier-0021.sql (migration 0021) or post-supplier-before-26.sql
# Makes a scratch database migrated by `tprm migrate` (dist/ built), with before-26.sql applied for the
# before-26 script, runs SCRIPT N times (2,000 by default) after 300 to warm up, and prints per statement the
# blocks, WAL records and bytes (pg_stat_statements), then their sums per transaction.
set -eu
URL=$1
SCRIPT=$2
N=${3:-2000}
HERE=$(dirname "$0")
DB=write_path_$$
psql -q "$URL/postgres" -c "create database $DB"
trap 'psql -q "$URL/postgres" -c "drop database if exists $DB with (force)"' EXIT
DATABASE_URL="$URL/$DB" node "$HERE/../../dist/src/cli/main.js" migrate >/dev/null
psql -q "$URL/$DB" -f "$HERE/setup.sql" -c 'create extension if not exists pg_stat_statements'
case $SCRIPT in *before-26*) psql -q "$URL/$DB" -f "$HERE/before-26.sql" ;; esac
pgbench -n -M prepared -t 300 -f "$HERE/$SCRIPT" "$URL/$DB" >/dev/null
psql -q "$URL/$DB" -c 'select pg_stat_statements_reset()' >/dev/null
pgbench -n -M prepared -t "$N" -f "$HERE/$SCRIPT" "$URL/$DB" | grep -E 'processed|error'
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
