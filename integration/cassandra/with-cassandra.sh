#!/usr/bin/env bash
# Run a command with CASSANDRA_HOSTS pointing at a Cassandra:
#
#   with-cassandra.sh COMMAND [ARGS...]
#
# When CASSANDRA_HOSTS is already set, the command simply runs. Otherwise
# the managed node (cassandra.sh) is used if it runs, or started, and then
# stopped again when the command ends, whether it succeeded or not. The
# command's exit status is this script's. cassandra.sh's settings apply:
# CQLGEN_CASSANDRA_VERSION, CQLGEN_CASSANDRA_HOST (the address
# CASSANDRA_HOSTS then names) and CQLGEN_CASSANDRA_DIR run another version
# on an address of its own beside the default node (make
# test-integration-other).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cassandra="$script_dir/cassandra.sh"

if [[ -z "${CASSANDRA_HOSTS:-}" ]]; then
    if ! "$cassandra" status >/dev/null 2>&1; then
        trap '"$cassandra" stop' EXIT
        "$cassandra" start
    fi
    export CASSANDRA_HOSTS="${CQLGEN_CASSANDRA_HOST:-127.0.0.1}:9042"
fi
echo "with-cassandra.sh: CASSANDRA_HOSTS=$CASSANDRA_HOSTS" >&2
"$@"
