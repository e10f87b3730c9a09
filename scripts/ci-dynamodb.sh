# Sourced by .ci/run (after ci-postgres.sh): starts AWS's own DynamoDB Local, in memory, on a free
# port of 127.0.0.1, and exports TOOLROW_TEST_DYNAMODB_URL, which the DynamoDB engine's tests use.
# The jar is the one Amazon publishes, taken from the npm package amplify-dynamodb-simulator
# (emulator/) with `npm pack` (the registry only; none of that package's dependencies), kept in a
# cache directory; it runs on Debian's openjdk-17-jre-headless. Stopped when .ci/run exits.
# Run it by hand too: `. scripts/ci-dynamodb.sh` in a shell, then `npm test`.
ddb_version=2.9.30
ddb_home="${XDG_CACHE_HOME:-$HOME/.cache}/toolrow/dynamodb-local-$ddb_version"
if ! command -v java >/dev/null 2>&1; then
  echo "Java is missing: DynamoDB Local runs on it (install Debian's openjdk-17-jre-headless)." >&2
  return 1 2>/dev/null || exit 1
fi
if [ ! -f "$ddb_home/DynamoDBLocal.jar" ]; then
  ddb_tmp=$(mktemp -d /tmp/toolrow-ddb-pack.XXXXXX)
  (cd "$ddb_tmp" && npm pack --silent "amplify-dynamodb-simulator@$ddb_version" >/dev/null &&
    tar xzf "amplify-dynamodb-simulator-$ddb_version.tgz" package/emulator)
  mkdir -p "$(dirname "$ddb_home")"
  rm -rf "$ddb_home"
  mv "$ddb_tmp/package/emulator" "$ddb_home"
  rm -rf "$ddb_tmp"
fi

ddb_log=$(mktemp /tmp/toolrow-ci-ddb.XXXXXX.log)
ddb_pid=
ddb_port=
for _ in 1 2 3 4 5 6 7 8; do
  candidate=$(( 20000 + RANDOM % 30000 ))
  (cd "$ddb_home" && exec java -Xmx512m -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
    -inMemory -port "$candidate") >"$ddb_log" 2>&1 &
  ddb_pid=$!
  # Ready when it answers on the port; gone when the port was taken (it exits).
  for _ in $(seq 1 120); do
    if ! kill -0 "$ddb_pid" 2>/dev/null; then break; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then ddb_port=$candidate; break; fi
    sleep 0.5
  done
  [ -n "$ddb_port" ] && break
  kill "$ddb_pid" 2>/dev/null || true
done
if [ -z "$ddb_port" ]; then
  echo "Could not start DynamoDB Local:" >&2
  cat "$ddb_log" >&2 || true
  return 1 2>/dev/null || exit 1
fi

stop_ci_dynamodb() {
  kill "$ddb_pid" 2>/dev/null || true
  rm -f "$ddb_log"
}
# One EXIT trap for every service (ci-postgres.sh set the first).
if declare -F stop_ci_postgres >/dev/null; then
  trap 'stop_ci_dynamodb; stop_ci_postgres' EXIT
else
  trap stop_ci_dynamodb EXIT
fi
export TOOLROW_TEST_DYNAMODB_URL="dynamodb://127.0.0.1:$ddb_port?region=us-east-1"
echo "DynamoDB Local $ddb_version on 127.0.0.1:$ddb_port, in memory (stopped at exit); TOOLROW_TEST_DYNAMODB_URL is set."
