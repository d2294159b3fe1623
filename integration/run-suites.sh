#!/usr/bin/env bash
# make test's suites, each run to its end whatever the others did, and one
# summary at the end:
#
#   run-suites.sh run NAME COMMAND [ARGS...]   run a suite
#   run-suites.sh wrap NAME COMMAND [ARGS...]  run a command that runs suites
#                                              (with-cassandra.sh); listed only
#                                              if it fails itself
#   run-suites.sh skip NAME REASON             list a suite left out, and why
#   run-suites.sh summary                      print the table; exit 1 if a
#                                              suite failed
#
# The suites of one make test share CQLGEN_SUITES_DIR, a folder that holds
# each suite's full log (NAME.log) and the results. Without it, run and
# wrap just run the command and return its status (a target run alone).
# A suite's output stays on the terminal as it runs; the summary names,
# for each failed suite, its failing tests (the "--- FAIL: TestX" lines of
# go test), or else its failing packages, and where its log is.
set -uo pipefail

dir="${CQLGEN_SUITES_DIR:-}"
results="$dir/results"

# record NAME STATUS SECONDS DETAIL
record() {
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$results"
}

# failures LOG: the failing tests of a go test log, else its failing
# packages, comma-separated; at most 12, and how many more.
failures() {
    local names
    names=$(sed -nE 's/^[[:space:]]*--- FAIL: ([^ ]+).*/\1/p' "$1" | awk '!seen[$0]++')
    if grep -q '^panic: test timed out' "$1"; then
        names=$(printf '%s\n%s' "$names" "(a test binary timed out: see the log)")
    fi
    if [[ -z "${names//[[:space:]]/}" ]]; then
        names=$(sed -nE 's/^FAIL[[:space:]]+([^[:space:]]+)([[:space:]].*)?$/package \1\2/p' "$1" | awk '!seen[$0]++')
    fi
    printf '%s\n' "$names" | awk 'NF { n++; if (n <= 12) out = out (n > 1 ? ", " : "") $0 }
        END { if (n > 12) out = out ", and " (n - 12) " more"; print out }'
}

cmd="${1:-}"
shift || true
case "$cmd" in
run | wrap)
    name="$1"
    shift
    if [[ -z "$dir" ]]; then
        "$@"
        exit $?
    fi
    if [[ "$cmd" == wrap ]]; then
        start=$SECONDS
        "$@"
        rc=$?
        if [[ $rc -ne 0 ]]; then
            record "$name" FAILED $((SECONDS - start)) "exit $rc (the suites it runs are listed above it)"
        fi
        exit 0
    fi
    log="$dir/$(printf '%s' "$name" | tr '/ ' '__').log"
    printf '\n=== make test: suite %s (log: %s)\n' "$name" "$log"
    start=$SECONDS
    "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    took=$((SECONDS - start))
    if [[ $rc -eq 0 ]]; then
        record "$name" passed "$took" ""
        printf '=== make test: suite %s passed (%ds)\n' "$name" "$took"
    else
        detail=$(failures "$log")
        record "$name" FAILED "$took" "exit $rc${detail:+: $detail}"
        printf '=== make test: suite %s FAILED (%ds, exit %d); going on with the next\n' "$name" "$took" "$rc"
    fi
    exit 0
    ;;
skip)
    if [[ -n "$dir" ]]; then
        record "$1" "left out" 0 "$2"
    fi
    echo "make test: suite $1 left out: $2"
    exit 0
    ;;
summary)
    if [[ -z "$dir" || ! -f "$results" ]]; then
        echo "run-suites.sh summary: no suite ran (CQLGEN_SUITES_DIR=${dir:-unset})" >&2
        exit 1
    fi
    failed=()
    n=0
    printf '\n=== make test: summary (load average %s; logs in %s)\n' "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" "$dir"
    while IFS=$'\t' read -r name status took detail; do
        n=$((n + 1))
        if [[ "$status" == "left out" ]]; then took=-; else took="${took}s"; fi
        printf '  %-30s %-9s %6s  %s\n' "$name" "$status" "$took" "$detail"
        if [[ "$status" == FAILED ]]; then
            failed+=("$name")
            log="$dir/$(printf '%s' "$name" | tr '/ ' '__').log"
            if [[ -f "$log" ]]; then
                printf '  %-30s %-9s %6s  log: %s\n' "" "" "" "$log"
            fi
        fi
    done <"$results"
    if [[ ${#failed[@]} -gt 0 ]]; then
        list=$(printf '%s, ' "${failed[@]}")
        echo "make test: FAILED: ${#failed[@]} of $n suite(s): ${list%, }"
        exit 1
    fi
    echo "make test: every suite that ran passed ($n listed)"
    exit 0
    ;;
*)
    sed -n '2,20p' "$0" >&2
    exit 2
    ;;
esac
