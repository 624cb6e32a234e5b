#!/bin/sh
# One-shot job of docker-compose.yml (temporal-namespace, temporalio/admin-tools):
# waits until the Temporal server answers, then creates Keyflow's namespace
# (TEMPORAL_NAMESPACE) unless it exists. The api and the worker start after it.
set -eu
address=temporal:7233
namespace=${TEMPORAL_NAMESPACE:?}
tries=0
until temporal operator cluster health --address "$address" >/dev/null 2>&1; do
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "Temporal at $address did not become healthy" >&2; exit 1; }
  sleep 2
done
if temporal operator namespace describe --address "$address" -n "$namespace" >/dev/null 2>&1; then
  echo "namespace $namespace exists"
else
  # Another run may have created it in between: then describe answers.
  temporal operator namespace create --address "$address" -n "$namespace" --retention "${TEMPORAL_RETENTION:-72h}" ||
    temporal operator namespace describe --address "$address" -n "$namespace" >/dev/null
  echo "namespace $namespace ready"
fi
