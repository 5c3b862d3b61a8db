#!/usr/bin/env bash
#   scripts/postgres-test-server.sh run COMMAND...   (as below, around COMMAND)
#   scripts/postgres-test-server.sh start DIR        (prints the server's URL)
#   scripts/postgres-test-server.sh stop DIR
# A throwaway PostgreSQL 15 server (Debian's postgresql-15) for the tests of
# the PostgreSQL results history: data and socket in DIR, listening on
# 127.0.0.1 only, on the first free port from 54320, a superuser `pdbench`
# with a password (so the tests can also try a wrong one), fsync off.
# PostgreSQL refuses to run as root: as root, the server runs as the
# `postgres` user the package creates. `stop` ends it and removes DIR.
# `run` starts one in a temporary DIR, runs COMMAND with its URL in
# PDBENCH_TEST_POSTGRES_URL (tests/support/postgres_test_db.h), and stops
# it, exiting with COMMAND's status.
set -euo pipefail
bin=/usr/lib/postgresql/15/bin
if [ "${1:-}" = run ] && [ $# -ge 2 ]; then
  shift
  dir="$(mktemp -d)"
  trap 'bash "$0" stop "$dir"' EXIT
  PDBENCH_TEST_POSTGRES_URL="$(bash "$0" start "$dir")"
  export PDBENCH_TEST_POSTGRES_URL
  "$@"
  exit
fi
if [ $# -ne 2 ] || { [ "$1" != start ] && [ "$1" != stop ]; }; then
  echo "usage: $0 run COMMAND... | start DIR | stop DIR" >&2
  exit 2
fi
command=$1 dir=$2
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [ "$command" = stop ]; then
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi

if [ ! -x "$bin/initdb" ]; then
  echo "postgres-test-server: $bin/initdb not found (scripts/setup.sh installs postgresql-15)" >&2
  exit 1
fi
mkdir -p "$dir"
[ "$(id -u)" -ne 0 ] || chown postgres "$dir"
password=pdbench-test
as_owner bash -c "echo $password > '$dir/password'"
if ! as_owner "$bin/initdb" -D "$dir/data" -U pdbench --pwfile="$dir/password" --auth=scram-sha-256 -E UTF8 \
  --locale=C >"$dir/initdb.log" 2>&1; then
  cat "$dir/initdb.log" >&2
  exit 1
fi
for port in $(seq 54320 54359); do
  if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50" start >/dev/null 2>&1; then
    echo "postgresql://pdbench:$password@127.0.0.1:$port/postgres"
    exit 0
  fi
done
echo "postgres-test-server: no port from 54320 to 54359 could be used; the server's log:" >&2
cat "$dir/server.log" >&2
exit 1
