#!/usr/bin/env bash
# Run a command beside a CPU hog, as on a busy CI runner or a laptop
# building something else (docs/testing.md, "On a loaded machine"):
#
#   with-load.sh N COMMAND [ARGS...]
#
# starts N busy loops (sh -c 'while :; do :; done', at the command's own
# priority, so they compete with it and with Cassandra), runs the command,
# stops the loops (by their process ids) however it ends, and prints the
# 1-minute load average when it started, every minute while it ran, and
# the least and most seen. On 2 cores, N=8 gives a load of about 10 once
# the command and Cassandra run too. The command's exit status is this
# script's.
set -uo pipefail

if [[ $# -lt 2 || ! "$1" =~ ^[0-9]+$ ]]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
n=$1
shift

load() { cut -d' ' -f1 /proc/loadavg; }

hogs=()
stop() {
    if [[ ${#hogs[@]} -gt 0 ]]; then
        kill "${hogs[@]}" 2>/dev/null
        wait "${hogs[@]}" 2>/dev/null
    fi
    hogs=()
}
trap stop EXIT INT TERM

echo "with-load.sh: load average $(load) before; starting $n busy loop(s) on $(nproc) core(s)" >&2
for _ in $(seq "$n"); do
    sh -c 'while :; do :; done' &
    hogs+=($!)
done

samples="$(mktemp)"
(
    # A second's sleep at a time: stopped, the sampler leaves none behind.
    while :; do
        for _ in $(seq 60); do sleep 1; done
        l=$(load)
        echo "$l" >>"$samples"
        echo "with-load.sh: load average $l" >&2
    done
) &
sampler=$!
hogs+=("$sampler")

"$@"
rc=$?
load >>"$samples"
stop
sort -n "$samples" | awk -v rc="$rc" 'NR == 1 { lo = $1 } { hi = $1 }
    END { printf "with-load.sh: load average while it ran: %s to %s (1-minute, sampled each minute); exit %d\n", lo, hi, rc > "/dev/stderr" }'
rm -f "$samples"
exit "$rc"
