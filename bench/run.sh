#!/usr/bin/env bash
# Runs every benchmark of bench/ and bench/gocassa against the Cassandra in
# CASSANDRA_HOSTS (`make bench` provides one) and writes, under out/:
#
#   cqlgen.txt, gocassa.txt   the raw benchmark output, every run
#   benchstat.txt             benchstat's summary, with confidence intervals
#   results.md                the tables of README.md
#
# and rewrites those tables in README.md itself, between its benchtable
# markers (BENCH_README=0 leaves README.md alone).
#
# The runs against Cassandra are interleaved: each of the BENCH_COUNT
# rounds runs the main binary, then gocassa's (which needs an older gocql
# and cannot share it), so drift over the minutes of a run falls on both
# alike. Benchmarks without a server run BENCH_COUNT times in one go.
#
# Environment: BENCH_COUNT (6), BENCH_TIME (1s, per benchmark against
# Cassandra), BENCH_SCATTER_TIME (3s; a round of scatter-gather reads is
# slow), BENCH_GEN_TIME (10x).
set -euo pipefail
cd "$(dirname "$0")"

count="${BENCH_COUNT:-6}"
time="${BENCH_TIME:-1s}"
scatter_time="${BENCH_SCATTER_TIME:-3s}"
gen_time="${BENCH_GEN_TIME:-10x}"
: "${CASSANDRA_HOSTS:?set CASSANDRA_HOSTS, or run make bench}"

mkdir -p out
go test -c -o out/bench.test .
(cd gocassa && go test -c -o ../out/gocassa.test .)
: >out/cqlgen.txt
: >out/gocassa.txt

bench() { ./out/bench.test -test.run '^$' -test.benchmem "$@" | tee -a out/cqlgen.txt; }

for i in $(seq "$count"); do
    echo "run.sh: round $i of $count" >&2
    bench -test.bench '^Benchmark(Insert|Get|Page|FanOut|Protocol|Walk|Price|MultiGet)(Paired)?$' -test.benchtime "$time"
    bench -test.bench '^BenchmarkScatter(Paired)?$' -test.benchtime "$scatter_time"
    (cd gocassa && ../out/gocassa.test -test.run '^$' -test.benchmem -test.bench . -test.benchtime "$time") | tee -a out/gocassa.txt
done
bench -test.bench '^Benchmark(Bind|Merge)$' -test.count "$count"
bench -test.bench '^Benchmark(Generate|GeneratePaired|Emit)$' -test.count "$count" -test.benchtime "$gen_time"

{
    echo "# benchstat out/cqlgen.txt"
    go tool benchstat out/cqlgen.txt
    echo
    echo "# benchstat out/gocassa.txt"
    go tool benchstat out/gocassa.txt
    echo
    echo "# benchstat -col /impl out/cqlgen.txt out/gocassa.txt (each impl against the first of its row)"
    go tool benchstat -col /impl out/cqlgen.txt out/gocassa.txt
} >out/benchstat.txt 2>&1
if [ "${BENCH_README:-1}" = 1 ]; then
    go run ./cmd/benchtable -readme README.md out/cqlgen.txt out/gocassa.txt >out/results.md
    echo "run.sh: wrote bench/out/results.md and bench/out/benchstat.txt, and the tables of README.md" >&2
else
    go run ./cmd/benchtable out/cqlgen.txt out/gocassa.txt >out/results.md
    echo "run.sh: wrote bench/out/results.md and bench/out/benchstat.txt" >&2
fi
