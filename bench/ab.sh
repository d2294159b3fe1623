#!/usr/bin/env bash
# A/B of the run-time paired benchmarks: cqlgen at a BEFORE revision
# against the working tree (AFTER), on the Cassandra in CASSANDRA_HOSTS.
#
#   CASSANDRA_HOSTS=127.0.0.1:9042 bash bench/ab.sh [BEFORE_REV]
#
# BEFORE_REV defaults to d421b3f (issue 25's before). The before tree is
# exported with `git archive` into a temporary directory (nothing is added
# to the repository, not even a worktree), each side's bench module is
# compiled once into a test binary, and the two binaries then run in
# turn, AB_COUNT (6) rounds, so that the machine's drift falls on both
# alike. Each paired benchmark reports cqlgen's latency as a ratio to raw
# gocql measured in the same process and time window (`cqlgen/gocql-p50`,
# `cqlgen-concurrent/gocql-concurrent-p50`, ...): those ratios, before
# against after, are what "unchanged, within noise" is judged on;
# benchstat compares them, and the absolute p50s, with confidence
# intervals.
#
# Environment: AB_COUNT (6), AB_TIME (1s a benchmark), AB_SCATTER_TIME
# (3s), AB_BENCH (the regexp of the benchmarks but scatter, default
# below), AB_SCATTER (the scatter regexp; empty leaves it out), AB_OUT
# (the directory of the results, default bench/out/ab).
set -euo pipefail
cd "$(dirname "$0")"
bench_dir=$(pwd)
root=$(cd .. && pwd)

before_rev=${1:-d421b3f}
count=${AB_COUNT:-6}
time=${AB_TIME:-1s}
scatter_time=${AB_SCATTER_TIME:-3s}
pattern=${AB_BENCH:-'^Benchmark(Insert|Get|Page|FanOut|Protocol|Protocol4)Paired$'}
scatter=${AB_SCATTER-'^BenchmarkScatterPaired$'}
out=${AB_OUT:-$bench_dir/out/ab}

# The after side must run the model its own generator writes.
if ! go tool cqlgen check ./model >/dev/null; then
	echo "ab.sh: bench/model is stale for the working tree's cqlgen: run make bench-generate first" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cqlgen-ab.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/before" "$out"
git -C "$root" archive "$before_rev" | tar -x -C "$tmp/before"
(cd "$tmp/before/bench" && go test -c -o "$tmp/before.test" .)
go test -c -o "$tmp/after.test" .
echo "ab.sh: before = $(git -C "$root" rev-parse --short "$before_rev"), after = the working tree at $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' (with changes)')" >&2
: >"$out/before.txt"
: >"$out/after.txt"

# side NAME: one round of NAME's binary, from its own bench directory.
side() {
	local name=$1 dir=$bench_dir
	[ "$name" = before ] && dir=$tmp/before/bench
	(cd "$dir" && "$tmp/$name.test" -test.run '^$' -test.benchmem \
		-test.bench "$pattern" -test.benchtime "$time") | tee -a "$out/$name.txt"
	if [ -n "$scatter" ]; then
		(cd "$dir" && "$tmp/$name.test" -test.run '^$' -test.benchmem \
			-test.bench "$scatter" -test.benchtime "$scatter_time") | tee -a "$out/$name.txt"
	fi
}

for i in $(seq "$count"); do
	echo "ab.sh: round $i of $count" >&2
	# Alternate which side goes first, so neither always runs on a node
	# the other has just warmed.
	if [ $((i % 2)) = 1 ]; then side before; side after; else side after; side before; fi
done

go tool benchstat "$out/before.txt" "$out/after.txt" | tee "$out/benchstat.txt"
echo "ab.sh: wrote $out/before.txt, after.txt and benchstat.txt" >&2
