# Sourced by .ci/run: starts the Debian PostgreSQL cluster and exports TOOLROW_TEST_DATABASE_URL,
# which the data-layer tests use to run the same suite against a real server.
pg_version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
if ! pg_lsclusters -h | grep -q .; then
  as_root pg_createcluster "$pg_version" main
fi
cluster=$(pg_lsclusters -h | head -n 1)
cluster_version=$(echo "$cluster" | awk '{print $1}')
cluster_name=$(echo "$cluster" | awk '{print $2}')
cluster_port=$(echo "$cluster" | awk '{print $3}')
if ! echo "$cluster" | grep -q online; then
  as_root pg_ctlcluster "$cluster_version" "$cluster_name" start
fi
as_root su postgres -c "psql -p $cluster_port -qtAc \"SELECT 1 FROM pg_roles WHERE rolname = 'toolrow'\"" | grep -q 1 ||
  as_root su postgres -c "psql -p $cluster_port -qc \"CREATE ROLE toolrow LOGIN SUPERUSER PASSWORD 'toolrow'\""
as_root su postgres -c "psql -p $cluster_port -qtAc \"SELECT 1 FROM pg_database WHERE datname = 'toolrow_test'\"" | grep -q 1 ||
  as_root su postgres -c "createdb -p $cluster_port -O toolrow toolrow_test"
export TOOLROW_TEST_DATABASE_URL="postgres://toolrow:toolrow@127.0.0.1:$cluster_port/toolrow_test"
echo "PostgreSQL $cluster_version/$cluster_name on port $cluster_port; TOOLROW_TEST_DATABASE_URL is set."
