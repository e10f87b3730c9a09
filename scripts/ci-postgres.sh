# Sourced by .ci/run: starts a throwaway PostgreSQL cluster of its own (Debian's server binaries,
# a temp data directory, a free port on 127.0.0.1, a random password) and exports
# TOOLROW_TEST_DATABASE_URL, which the data-layer tests use to run the same suite against a real
# server. The machine's own clusters are never touched; the cluster is stopped and deleted when
# .ci/run exits, however it exits.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "PostgreSQL's server binaries are missing (install Debian's postgresql package)." >&2
  exit 1
fi
pg_dir=$(mktemp -d /tmp/toolrow-ci-pg.XXXXXX)
pg_password=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
# initdb refuses to run as root: the cluster belongs to the postgres account.
pg_user=postgres
if [ "$(id -u)" -ne 0 ]; then pg_user=$(id -un); fi
as_pg() { if [ "$(id -un)" = "$pg_user" ]; then "$@"; else as_root runuser -u "$pg_user" -- "$@"; fi; }
as_root chown "$pg_user" "$pg_dir"
printf '%s\n' "$pg_password" > "$pg_dir/pwfile"
as_root chown "$pg_user" "$pg_dir/pwfile"
as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U toolrow --pwfile="$pg_dir/pwfile" -A scram-sha-256 -E UTF8 >/dev/null
rm -f "$pg_dir/pwfile"

stop_ci_postgres() {
  as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1 || true
  as_root rm -rf "$pg_dir"
}
trap stop_ci_postgres EXIT

# A free port: try a few random ones (pg_ctl fails fast when one is taken).
pg_port=
for _ in 1 2 3 4 5 6 7 8; do
  candidate=$(( 20000 + RANDOM % 30000 ))
  if as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -w -t 60 -l "$pg_dir/log" \
    -o "-p $candidate -k $pg_dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null; then
    pg_port=$candidate
    break
  fi
done
if [ -z "$pg_port" ]; then
  echo "Could not start the test PostgreSQL cluster:" >&2
  cat "$pg_dir/log" >&2 || true
  exit 1
fi
PGPASSWORD="$pg_password" "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U toolrow -d postgres -qc "CREATE DATABASE toolrow_test"
export TOOLROW_TEST_DATABASE_URL="postgres://toolrow:$pg_password@127.0.0.1:$pg_port/toolrow_test"
echo "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port, a throwaway cluster in $pg_dir (removed at exit); TOOLROW_TEST_DATABASE_URL is set."
