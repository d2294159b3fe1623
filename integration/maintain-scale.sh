#!/usr/bin/env bash
# Scaling across workers (issue 38, item 5; bench/README.md, "Maintenance
# across workers"): BenchmarkMaintainWorkers' backfill and verify by job
# of SCALE_ROWS tracks (20000), and its adopt of SCALE_ADOPT_ROWS (5000: a
# Paxos round a row), each by 1, 2 and 4 worker processes, SCALE_ROUNDS
# rounds (2) of the three modes in turn, each mode in a keyspace of its
# own, with uptime between them. Against CASSANDRA_HOSTS; the CPU of the
# nodes whose pid files CQLGEN_WORKER_PIDFILES names. make maintain-scale
# and maintain-scale-cluster run it.
set -euo pipefail

: "${CASSANDRA_HOSTS:?set CASSANDRA_HOSTS}"
rows="${SCALE_ROWS:-20000}"
adopt_rows="${SCALE_ADOPT_ROWS:-5000}"
rounds="${SCALE_ROUNDS:-2}"

cd "$(dirname "${BASH_SOURCE[0]}")"
bin="$(mktemp)"
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" .
echo "CASSANDRA_HOSTS=$CASSANDRA_HOSTS CASSANDRA_LOCAL_DC=${CASSANDRA_LOCAL_DC:-} CQLGEN_WORKER_PIDFILES=${CQLGEN_WORKER_PIDFILES:-}"
for ((r = 1; r <= rounds; r++)); do
    for m in "backfill $rows" "verify $rows" "adopt $adopt_rows"; do
        read -r mode n <<<"$m"
        uptime
        out="$(CQLGEN_WORKER_ROWS=$n "$bin" -test.run '^$' -test.bench "^BenchmarkMaintainWorkers\$/^$mode\$/" \
            -test.benchtime=1x -test.timeout 30m 2>&1)" || {
            printf '%s\n' "$out"
            exit 1
        }
        grep -E '^Benchmark' <<<"$out"
    done
done
uptime
