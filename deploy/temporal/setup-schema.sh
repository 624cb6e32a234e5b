#!/bin/sh
# One-shot job of docker-compose.yml (temporal-schema, temporalio/admin-tools):
# creates Temporal's two PostgreSQL databases, the default store and the
# visibility store, and brings their schemas to the version this admin-tools
# release carries. Every step is idempotent: `create` accepts an existing
# database, `setup-schema -v 0.0` only adds the version tables, and
# `update-schema` applies the versions a database lacks. So the job runs at
# every `docker compose up`, and upgrades the schemas when the admin-tools and
# server images move to a new Temporal release (move both together).
# The password comes from SQL_PASSWORD in the environment, not the command line.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
schemas=/etc/temporal/schema/postgresql/v12
sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" "$@"
}

sql --db temporal create
sql --db temporal setup-schema -v 0.0
sql --db temporal update-schema -d "$schemas/temporal/versioned"

sql --db temporal_visibility create
sql --db temporal_visibility setup-schema -v 0.0
sql --db temporal_visibility update-schema -d "$schemas/visibility/versioned"

echo "Temporal schemas up to date"
