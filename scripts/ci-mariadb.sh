# Sourced by .ci/run: starts a throwaway MariaDB server of its own (Debian's mariadb-server binaries,
# a temp data directory, a free port on 127.0.0.1, a random password) and exports
# TOOLROW_TEST_MARIADB_URL, an account that may create databases and users, which the MySQL engine's
# tests use against a real server. The machine's own server is never touched; this one is stopped and
# deleted when .ci/run exits, however it exits.
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  echo "MariaDB's server binaries are missing (install Debian's mariadb-server package)." >&2
  exit 1
fi
maria_bin=$(command -v mariadbd || echo /usr/sbin/mariadbd)
maria_dir=$(mktemp -d /tmp/toolrow-ci-mariadb.XXXXXX)
maria_password=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
# mariadbd will not run as root: the server belongs to Debian's mysql account then.
maria_user=mysql
if [ "$(id -u)" -ne 0 ]; then maria_user=$(id -un); fi
as_root chown "$maria_user" "$maria_dir"
as_root chmod 755 "$maria_dir"
mariadb-install-db --no-defaults --datadir="$maria_dir/data" --user="$maria_user" \
  --auth-root-authentication-method=normal --skip-test-db >"$maria_dir/install.log" 2>&1 || {
  cat "$maria_dir/install.log" >&2
  exit 1
}

stop_ci_mariadb() {
  if [ -n "${maria_pid:-}" ]; then
    kill "$maria_pid" 2>/dev/null || true
    wait "$maria_pid" 2>/dev/null || true
  fi
  as_root rm -rf "$maria_dir"
}
# Keep an EXIT trap set earlier (PostgreSQL's): both services stop, however .ci/run exits.
previous_exit_trap=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
trap "stop_ci_mariadb; ${previous_exit_trap:-:}" EXIT

maria_port=
for _ in 1 2 3 4 5 6 7 8; do
  candidate=$(( 20000 + RANDOM % 30000 ))
  "$maria_bin" --no-defaults --datadir="$maria_dir/data" --user="$maria_user" --port="$candidate" \
    --bind-address=127.0.0.1 --socket="$maria_dir/sock" --pid-file="$maria_dir/pid" \
    --skip-log-bin --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --max-connections=300 \
    --log-error="$maria_dir/log" >"$maria_dir/out" 2>&1 &
  maria_pid=$!
  for _ in $(seq 1 120); do
    if mariadb --no-defaults --socket="$maria_dir/sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
      maria_port=$candidate
      break 2
    fi
    kill -0 "$maria_pid" 2>/dev/null || break
    sleep 0.5
  done
  kill "$maria_pid" 2>/dev/null || true
  wait "$maria_pid" 2>/dev/null || true
  maria_pid=
done
if [ -z "$maria_port" ]; then
  echo "Could not start the test MariaDB server:" >&2
  cat "$maria_dir/log" >&2 || true
  exit 1
fi
mariadb --no-defaults --socket="$maria_dir/sock" -uroot <<SQL
CREATE USER 'toolrow'@'127.0.0.1' IDENTIFIED BY '$maria_password';
CREATE USER 'toolrow'@'localhost' IDENTIFIED BY '$maria_password';
GRANT ALL PRIVILEGES ON *.* TO 'toolrow'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'toolrow'@'localhost' WITH GRANT OPTION;
CREATE DATABASE toolrow_test CHARACTER SET utf8mb4;
SQL
export TOOLROW_TEST_MARIADB_URL="mariadb://toolrow:$maria_password@127.0.0.1:$maria_port/toolrow_test"
echo "MariaDB $("$maria_bin" --version | awk '{print $3}') on 127.0.0.1:$maria_port, a throwaway server in $maria_dir (removed at exit); TOOLROW_TEST_MARIADB_URL is set."
