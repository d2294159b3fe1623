#!/usr/bin/env bash
# Manage a throw-away Cassandra cluster of several nodes on loopback
# addresses, beside the single node of cassandra.sh (127.0.0.1), for the
# cluster suite (integration/cluster) and its benchmarks. Each node is a
# cassandra.sh node of its own: its address (127.0.0.2, .3, ...), the same
# ports 9042 and 7000 on it, its own directory, token, datacenter and JMX
# port.
#
#   cluster.sh start          start every node afresh (data wiped), one after
#                             another, and wait until each sees the others
#   cluster.sh stop           stop every node
#   cluster.sh status         exit 0 only if every node answers CQL
#   cluster.sh hosts          print the CQL contact points, comma-separated
#   cluster.sh stop-node N    stop node N (1-based): a clean shutdown
#   cluster.sh kill-node N    SIGKILL node N: a crash
#   cluster.sh start-node N   start node N again with its data (after an outage)
#   cluster.sh nodetool N ARGS  nodetool against node N (its JMX port)
#   cluster.sh logs N [lines] the tail of node N's logs
#   cluster.sh paxos [v1|v2]  print (and set, until restart) every running
#                             node's paxos_variant, over JMX
#   cluster.sh trace P        trace a share P (0 to 1) of the requests every
#                             node coordinates (system_traces), over JMX
#
# Environment (all optional):
#   CQLGEN_CLUSTER_DCS     the datacenter of each node, in order; as many
#                          nodes as names    ("dc1 dc1 dc2": 2 + 1 nodes)
#   CQLGEN_CLUSTER_DIR     where the nodes' directories go (/tmp/cqlgen-cluster)
#   CQLGEN_CLUSTER_HINTS   hinted_handoff_enabled on every node     (false)
#   CQLGEN_CLUSTER_JMX     JMX port of node 1; node N gets JMX+N-1  (7201)
#   CQLGEN_CLUSTER_PAXOS   paxos_variant of every node, v1 or v2
#                          (unset: Cassandra's default, v1 in 5.0)
#   MAX_HEAP_SIZE / HEAP_NEWSIZE                                    (512M / 96M)
# and cassandra.sh's own (CQLGEN_CASSANDRA_VERSION, _YAML, _JVM_OPTS, ...).
#
# Hinted handoff is off by default, unlike production: a node that was down
# then misses every write made meanwhile until a read or a repair brings it
# back, which the suite's fault tests rely on to be deterministic.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly CASSANDRA="$SCRIPT_DIR/cassandra.sh"
read -r -a DCS <<<"${CQLGEN_CLUSTER_DCS:-dc1 dc1 dc2}"
readonly DCS
readonly N=${#DCS[@]}
CLUSTER_DIR="$(realpath -m "${CQLGEN_CLUSTER_DIR:-/tmp/cqlgen-cluster}")"
readonly CLUSTER_DIR
readonly JMX_BASE="${CQLGEN_CLUSTER_JMX:-7201}"
readonly STORAGE_PORT=7000
readonly PORT=9042
# A node that stops tells the others at once (cassandra.sh's single node has
# nobody to tell and skips it). Otherwise they learn it from the failure
# detector some 10 s later, meanwhile sending it requests that time out.
#
# A node that starts again first asks its seed, within ring_delay, whether
# its address is taken (the shadow round); cassandra.sh's 1 s is too short
# for a seed busy on two loaded cores ("Unable to gossip with any peers").
# The ring delay is not slept through: no node bootstraps.
readonly ANNOUNCE="-Dcassandra.shutdown_announce_in_ms=2000 -Dcassandra.ring_delay_ms=10000"

log() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

((N >= 1 && N <= 9)) || die "CQLGEN_CLUSTER_DCS names $N nodes; 1 to 9 are supported"

# The Paxos implementation of lightweight transactions (docs/cluster.md,
# "Paxos v1 or v2"): the same on every node, appended to whatever
# cassandra.yaml lines the caller passes in CQLGEN_CASSANDRA_YAML.
readonly PAXOS="${CQLGEN_CLUSTER_PAXOS:-}"
case "$PAXOS" in
"" | v1 | v2) ;;
*) die "CQLGEN_CLUSTER_PAXOS is '$PAXOS'; v1 or v2" ;;
esac
YAML="${CQLGEN_CASSANDRA_YAML:-}"
if [[ -n "$PAXOS" ]]; then
    YAML+="${YAML:+$'\n'}paxos_variant: $PAXOS"
fi
readonly YAML

# host prints node $1's address: 127.0.0.2 for node 1. 127.0.0.1 belongs to
# the single node of cassandra.sh, which may run at the same time.
host() { printf '127.0.0.%d\n' $(($1 + 1)); }

# token prints node $1's token: the ring split evenly, so that each node is
# the primary replica of 1/N of the partitions. Added step by step: the
# products would overflow bash's 64-bit integers.
token() {
    local t=-9223372036854775807 step=$((9223372036854775807 / N * 2)) i
    t=$((t - 1))
    for ((i = 1; i < $1; i++)); do
        t=$((t + step))
    done
    printf '%d\n' "$t"
}

# node runs cassandra.sh for node $1 with the rest of the arguments.
node() {
    local i="$1"
    shift
    ((i >= 1 && i <= N)) || die "no node $i: the cluster has nodes 1 to $N"
    CQLGEN_CASSANDRA_DIR="$CLUSTER_DIR/node$i" \
        CQLGEN_CASSANDRA_HOST="$(host "$i")" \
        CQLGEN_CASSANDRA_SEEDS="$(host 1):$STORAGE_PORT" \
        CQLGEN_CASSANDRA_TOKEN="$(token "$i")" \
        CQLGEN_CASSANDRA_DC="${DCS[i - 1]}" \
        CQLGEN_CASSANDRA_RACK=rack1 \
        CQLGEN_CASSANDRA_JMX_PORT=$((JMX_BASE + i - 1)) \
        CQLGEN_CASSANDRA_HINTS="${CQLGEN_CLUSTER_HINTS:-false}" \
        CQLGEN_CASSANDRA_CLUSTER=cqlgen-cluster \
        CQLGEN_CASSANDRA_JVM_OPTS="$ANNOUNCE ${CQLGEN_CASSANDRA_JVM_OPTS:-}" \
        CQLGEN_CASSANDRA_YAML="$YAML" \
        MAX_HEAP_SIZE="${MAX_HEAP_SIZE:-512M}" \
        HEAP_NEWSIZE="${HEAP_NEWSIZE:-96M}" \
        "$CASSANDRA" "$@"
}

hosts() {
    local i out=""
    for ((i = 1; i <= N; i++)); do
        out+="${out:+,}$(host "$i"):$PORT"
    done
    printf '%s\n' "$out"
}

# check_addresses fails early when 127.0.0.2+ cannot be bound (macOS has
# only 127.0.0.1 until aliases are added; Linux routes all of 127/8).
check_addresses() {
    local i h addrs
    addrs="$(ip -o addr show 2>/dev/null || true)"
    for ((i = 1; i <= N; i++)); do
        h="$(host "$i")"
        if [[ "$addrs" != *"inet 127.0.0.1/8"* && "$addrs" != *"inet $h/"* ]]; then
            die "$h is not a local address; on macOS: sudo ifconfig lo0 alias $h"
        fi
    done
}

# rss prints the resident memory of every node's JVM, in MiB, summed.
rss() {
    local i pid total=0 kb
    for ((i = 1; i <= N; i++)); do
        pid="$(cat "$CLUSTER_DIR/node$i/cassandra.pid" 2>/dev/null || true)"
        [[ -n "$pid" ]] || continue
        kb="$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
        total=$((total + kb))
    done
    printf '%d\n' $((total / 1024))
}

start() {
    local started=$SECONDS i
    command -v ip >/dev/null && check_addresses
    mkdir -p "$CLUSTER_DIR"
    for ((i = 1; i <= N; i++)); do
        log "node $i: $(host "$i") in ${DCS[i - 1]}, token $(token "$i")"
        node "$i" start
    done
    for ((i = 1; i <= N; i++)); do
        "$CLUSTER_DIR/node$i/cqlping" -addr "$(host "$i"):$PORT" -peers $((N - 1)) -timeout 120s >/dev/null ||
            die "node $i does not see the $((N - 1)) others"
    done
    log "cluster of $N nodes ready after $((SECONDS - started))s, RSS $(rss) MiB in all; paxos_variant ${PAXOS:-default}; hosts $(hosts)"
}

# jmx runs NodeJMX.java on every node with the arguments, printing
# "node N: answer". It needs the JDK that runs the nodes.
jmx() {
    local i out
    for ((i = 1; i <= N; i++)); do
        out="$(java "$SCRIPT_DIR/NodeJMX.java" $((JMX_BASE + i - 1)) "$@")" ||
            die "node $i: JMX at 127.0.0.1:$((JMX_BASE + i - 1)) did not answer"
        printf 'node %d: %s\n' "$i" "$out"
    done
}

stop() {
    local i
    for ((i = N; i >= 1; i--)); do
        [[ -d "$CLUSTER_DIR/node$i" ]] || continue
        node "$i" stop
    done
}

status() {
    local i rc=0
    for ((i = 1; i <= N; i++)); do
        node "$i" status || rc=$?
    done
    return $rc
}

main() {
    case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    hosts) hosts ;;
    rss) rss ;;
    stop-node) node "${2:?node number}" stop ;;
    kill-node) node "${2:?node number}" kill ;;
    start-node) node "${2:?node number}" resume ;;
    nodetool)
        node "${2:?node number}" nodetool "${@:3}"
        ;;
    logs) node "${2:?node number}" logs "${3:-50}" ;;
    paxos)
        [[ -z "${2:-}" || "$2" == v1 || "$2" == v2 ]] || die "paxos: v1 or v2, not '$2'"
        jmx paxos ${2:+"$2"}
        ;;
    trace) jmx trace "${2:?probability, 0 to 1}" ;;
    *)
        printf 'usage: %s start|stop|status|hosts|rss|stop-node N|kill-node N|start-node N|nodetool N ARGS|logs N [lines]|paxos [v1|v2]|trace P\n' "$0" >&2
        exit 2
        ;;
    esac
}

main "$@"
