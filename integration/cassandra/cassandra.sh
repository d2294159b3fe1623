#!/usr/bin/env bash
# Manage a throw-away, single-node Apache Cassandra on 127.0.0.1:9042 for
# cqlgen's integration tests and benchmarks, without Docker.
#
#   cassandra.sh start    fetch (once, cached), configure, start, wait for CQL
#   cassandra.sh resume   start the stopped node again, keeping its data
#   cassandra.sh stop     stop the node this script started (by its pid)
#   cassandra.sh kill     SIGKILL it: a crash, not a shutdown
#   cassandra.sh status   exit 0 only if our node runs and answers CQL
#   cassandra.sh logs     print the tail of the node's logs
#   cassandra.sh env      print the CASSANDRA_* variables that reach it
#   cassandra.sh nodetool ARGS  run the distribution's nodetool against the
#                         node's local JMX port (CQLGEN_CASSANDRA_JMX_PORT)
#
# Environment (all optional):
#   CQLGEN_CASSANDRA_VERSION        Cassandra version            (5.0.8); a 6.x
#                                   version gets Accord enabled (make
#                                   cassandra6-start runs 6.0-alpha2)
#   CQLGEN_CASSANDRA_DIR            throw-away node directory    (/tmp/cqlgen-cassandra)
#   CQLGEN_CASSANDRA_START_TIMEOUT  seconds to wait for CQL      (180)
#   CQLGEN_CASSANDRA_STOP_TIMEOUT   seconds before SIGKILL       (30)
#   CQLGEN_CASSANDRA_STORAGE_PORT   internode port               (7000)
#   CQLGEN_CASSANDRA_HOST           listen and CQL address       (127.0.0.1)
#   CQLGEN_CASSANDRA_SEEDS          seed host:port list          (the node itself)
#   CQLGEN_CASSANDRA_TOKEN          the node's one token         (0)
#   CQLGEN_CASSANDRA_DC             datacenter; with it the node uses
#                                   GossipingPropertyFileSnitch  (none: SimpleSnitch)
#   CQLGEN_CASSANDRA_RACK           rack, with CQLGEN_CASSANDRA_DC (rack1)
#   CQLGEN_CASSANDRA_JMX_PORT       local JMX port               (none: JMX off)
#   CQLGEN_CASSANDRA_HINTS          hinted_handoff_enabled       (false)
#   CQLGEN_CASSANDRA_CLUSTER        cluster_name                 (cqlgen-test)
#                                   (cluster.sh sets these to run several
#                                   nodes on 127.0.0.2, .3, ...)
#   CQLGEN_CASSANDRA_LOG_LEVEL      root log level               (WARN)
#   CQLGEN_CASSANDRA_JVM_OPTS       extra JVM options, appended
#   CQLGEN_CASSANDRA_YAML           extra cassandra.yaml lines, appended
#                                   (e.g. "paxos_variant: v2")
#   CQLGEN_CASSANDRA_SECURE         1: a secured node (make test-secure):
#                                   password authentication, roles
#                                   (CassandraAuthorizer) and mutual TLS on
#                                   the native port, with a CA, a node and a
#                                   client certificate generated at start in
#                                   $CQLGEN_CASSANDRA_DIR/tls (ca.pem,
#                                   client.pem, client-key.pem); the
#                                   superuser is cassandra/cassandra.
#                                   `cassandra.sh env` prints the
#                                   CASSANDRA_* variables that reach it
#   MAX_HEAP_SIZE / HEAP_NEWSIZE    max heap / young generation (1G / 128M)
#   XDG_CACHE_HOME                  the distribution is cached in
#                                   ${XDG_CACHE_HOME:-$HOME/.cache}/cqlgen
#
# Apache publishes no binary tarball of Cassandra 5.x on Maven Central (the
# apache-cassandra:tar.gz:bin artifact stops at 4.0-alpha2), so the node is
# normally assembled from cassandra-all and its runtime dependencies, and
# launched straight with java: there is no bin/cassandra or conf/ to use, and
# this script writes the whole configuration itself.
set -euo pipefail

readonly CASSANDRA_VERSION="${CQLGEN_CASSANDRA_VERSION:-5.0.8}"
readonly CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/cqlgen"
readonly DIST="$CACHE_ROOT/cassandra-$CASSANDRA_VERSION"
# Absolute, because it is also how we recognise our JVM in /proc.
NODE_DIR="$(realpath -m "${CQLGEN_CASSANDRA_DIR:-/tmp/cqlgen-cassandra}")"
readonly NODE_DIR
readonly PIDFILE="$NODE_DIR/cassandra.pid"
readonly LOG_DIR="$NODE_DIR/logs"
readonly CQLPING="$NODE_DIR/cqlping"
readonly TLS_DIR="$NODE_DIR/tls"
readonly HOST="${CQLGEN_CASSANDRA_HOST:-127.0.0.1}"
readonly PORT=9042
readonly STORAGE_PORT="${CQLGEN_CASSANDRA_STORAGE_PORT:-7000}"
readonly SEEDS="${CQLGEN_CASSANDRA_SEEDS:-$HOST:$STORAGE_PORT}"
readonly TOKEN="${CQLGEN_CASSANDRA_TOKEN:-0}"
readonly DC="${CQLGEN_CASSANDRA_DC:-}"
readonly RACK="${CQLGEN_CASSANDRA_RACK:-rack1}"
readonly JMX_PORT="${CQLGEN_CASSANDRA_JMX_PORT:-}"
readonly HINTS="${CQLGEN_CASSANDRA_HINTS:-false}"
readonly CLUSTER_NAME="${CQLGEN_CASSANDRA_CLUSTER:-cqlgen-test}"
readonly START_TIMEOUT="${CQLGEN_CASSANDRA_START_TIMEOUT:-180}"
readonly STOP_TIMEOUT="${CQLGEN_CASSANDRA_STOP_TIMEOUT:-30}"
readonly MAVEN_DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1
# Marks a directory this script created, so a wrong CQLGEN_CASSANDRA_DIR is
# never wiped.
readonly MARKER=.cqlgen-cassandra-node

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly INTEGRATION_DIR="$SCRIPT_DIR/.."

# Let Ctrl-C and kill run the EXIT trap, which removes a partial download.
trap 'exit 130' INT TERM

log() { printf 'cassandra.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- fetching

# ensure_dist makes $DIST hold an unpacked distribution with a lib/ of jars.
# Everything is built in a temporary directory beside $DIST and renamed into
# place, so an interrupted fetch leaves no half-filled cache behind.
ensure_dist() {
    if [[ -d "$DIST/lib" ]]; then
        log "using cached Cassandra $CASSANDRA_VERSION from $DIST"
        return
    fi
    command -v mvn >/dev/null || die "mvn (Apache Maven) is needed to download Cassandra"
    mkdir -p "$CACHE_ROOT"
    # Leftovers of fetches that were killed before they could clean up.
    find "$CACHE_ROOT" -maxdepth 1 -name ".cassandra-*" -mmin +60 -exec rm -rf {} + 2>/dev/null || true
    local tmp
    tmp="$(mktemp -d "$CACHE_ROOT/.cassandra-$CASSANDRA_VERSION.XXXXXX")"
    # shellcheck disable=SC2064 # expand $tmp now: it is local
    trap "rm -rf '$tmp'" EXIT
    log "downloading Cassandra $CASSANDRA_VERSION from Maven Central (one time, into $DIST)"
    mkdir -p "$tmp/dist"
    if mvn -B -q "$MAVEN_DEPENDENCY_PLUGIN:copy" \
        -Dartifact="org.apache.cassandra:apache-cassandra:$CASSANDRA_VERSION:tar.gz:bin" \
        -DoutputDirectory="$tmp" >"$tmp/mvn-tarball.log" 2>&1; then
        log "got the binary distribution apache-cassandra-$CASSANDRA_VERSION-bin.tar.gz"
        tar -xzf "$tmp"/apache-cassandra-*-bin.tar.gz -C "$tmp/dist" --strip-components=1
    else
        log "no binary distribution on Maven Central; assembling from cassandra-all $CASSANDRA_VERSION + dependencies"
        cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>cqlgen</groupId>
  <artifactId>cassandra-fetch</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.cassandra</groupId>
      <artifactId>cassandra-all</artifactId>
      <version>$CASSANDRA_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
        if ! mvn -B -q -f "$tmp/pom.xml" "$MAVEN_DEPENDENCY_PLUGIN:copy-dependencies" \
            -DincludeScope=runtime -DoutputDirectory="$tmp/dist/lib" >"$tmp/mvn.log" 2>&1; then
            tail -n 30 "$tmp/mvn.log" >&2
            die "Maven could not fetch org.apache.cassandra:cassandra-all:$CASSANDRA_VERSION"
        fi
    fi
    [[ -n "$(compgen -G "$tmp/dist/lib/*.jar")" ]] || die "fetched distribution has no lib/*.jar"
    # mv -T refuses to land inside an existing $DIST that a concurrent fetch
    # may have finished first; either copy is complete, so keep theirs.
    mv -T "$tmp/dist" "$DIST" 2>/dev/null || log "another fetch finished first; using it"
    rm -rf "$tmp"
    trap - EXIT
    log "cached Cassandra $CASSANDRA_VERSION in $DIST ($(du -sh "$DIST" | cut -f1))"
}

# ---------------------------------------------------------------- process

# our_pid prints the pid from $PIDFILE if that process is alive and is our
# Cassandra (a reused pid must never be signalled).
our_pid() {
    [[ -f "$PIDFILE" ]] || return 1
    local pid state
    pid="$(<"$PIDFILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [[ -r "/proc/$pid/stat" ]] || return 1
    # A zombie waiting for its parent to reap it is as good as gone.
    state="$(sed -e 's/^.*) //' "/proc/$pid/stat" | cut -d' ' -f1)"
    [[ "$state" != Z ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "CassandraDaemon" || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-Dcassandra.storagedir=$NODE_DIR/data" || return 1
    printf '%s\n' "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# secure: whether the node is (to be) the secured one. A node started
# secured keeps its certificates in $TLS_DIR, so status, stop and resume
# need no CQLGEN_CASSANDRA_SECURE.
secure() { [[ "${CQLGEN_CASSANDRA_SECURE:-0}" == 1 || -f "$TLS_DIR/ca.pem" ]]; }

# cqlping_auth fills CQLPING_ARGS: how the probe logs in to a secured node
# (as the default superuser, whose password goes through the environment,
# not the command line) and speaks TLS to it with the client certificate.
cqlping_auth() {
    CQLPING_ARGS=()
    if secure; then
        CQLPING_ARGS=(-user cassandra -ca "$TLS_DIR/ca.pem" -cert "$TLS_DIR/client.pem" -key "$TLS_DIR/client-key.pem")
    fi
}

rss_of() { awk '/^VmRSS/ {printf "%d MiB", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }

# build_cqlping compiles the readiness probe. gocql comes through the Go
# module proxy like any other dependency; no Python or cqlsh needed.
build_cqlping() {
    command -v go >/dev/null || die "go is needed to build the CQL readiness probe"
    (cd "$INTEGRATION_DIR" && go build -buildvcs=false -o "$CQLPING" ./cassandra/cqlping) ||
        die "could not build $INTEGRATION_DIR/cassandra/cqlping"
}

# ---------------------------------------------------------------- config

write_config() {
    local conf="$NODE_DIR/conf" data="$NODE_DIR/data" snitch=SimpleSnitch
    mkdir -p "$conf" "$LOG_DIR" "$data"
    if [[ -n "$DC" ]]; then
        # The datacenter and rack this node gossips to the others.
        snitch=GossipingPropertyFileSnitch
        printf 'dc=%s\nrack=%s\n' "$DC" "$RACK" >"$conf/cassandra-rackdc.properties"
    fi
    cat >"$conf/cassandra.yaml" <<EOF
# Test node written by cqlgen's cassandra.sh (one node alone, or one of the
# nodes of cluster.sh); data is wiped on every start. Unset options keep
# Cassandra's built-in defaults.
cluster_name: $CLUSTER_NAME
# One token (0 alone; spread by cluster.sh): no vnode token allocation work
# and no waiting for it. Every node starts empty, so none bootstraps.
num_tokens: 1
initial_token: $TOKEN
auto_bootstrap: false
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: $snitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "$SEEDS"
listen_address: $HOST
rpc_address: $HOST
storage_port: $STORAGE_PORT
native_transport_port: $PORT
start_native_transport: true

data_file_directories:
  - $data/data
commitlog_directory: $data/commitlog
hints_directory: $data/hints
saved_caches_directory: $data/saved_caches
cdc_raw_directory: $data/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms

# Tests create and drop a keyspace each: no snapshot per drop/truncate.
auto_snapshot: false
# Off unless asked for: a node that was down misses what was written
# meanwhile until something repairs it, which fault tests rely on.
hinted_handoff_enabled: $HINTS
# A fresh 5.0 cluster with no 4.x sstables to stay compatible with.
storage_compatibility_mode: NONE
# Let generated code for views and SASI indexes be tested (off by default).
materialized_views_enabled: true
sasi_indexes_enabled: true
# And generated column masks (MASKED WITH), off by default too.
dynamic_data_masking_enabled: true
# Two cores running the node, go test and parallel tests: be patient rather
# than flaky.
read_request_timeout: 10000ms
range_request_timeout: 20000ms
write_request_timeout: 10000ms
counter_write_request_timeout: 10000ms
# Fewer background threads competing with the tests for two cores.
concurrent_compactors: 1
memtable_flush_writers: 1
EOF
    if [[ "$CASSANDRA_VERSION" == 6.* ]]; then
        # Cassandra 6 (CEP-15): Accord, the transaction protocol, is off by
        # default; tables still join it one by one, created WITH
        # transactional_mode = 'full'. The keys are AccordConfig's in
        # 6.0-alpha2 (its jar holds no default cassandra.yaml). Accord keeps
        # its journal beside the commit log, under the node's own data.
        cat >>"$conf/cassandra.yaml" <<EOF6
# Cassandra 6: Accord transactions on (docs/cassandra6.md).
accord:
  enabled: true
  journal_directory: $data/accord_journal
  # A node killed (kill -9, a crash) leaves no stop marker in its
  # journal; with the default policy, EXIT, it then refuses to start
  # again. A test node must come back after cassandra.sh kill: it starts
  # anyway, trusting its journal as it was (docs/cassandra6.md says what
  # that trades).
  journal:
    stop_marker_failure_policy: ALLOW_UNSAFE_STARTUP
EOF6
    fi
    if secure; then
        write_tls
        cat >>"$conf/cassandra.yaml" <<EOFS
# Secured (CQLGEN_CASSANDRA_SECURE=1): logins, roles and permissions, and
# mutual TLS on the native port with the certificates of $TLS_DIR.
authenticator: PasswordAuthenticator
authorizer: CassandraAuthorizer
role_manager: CassandraRoleManager
# No caching of roles, permissions and credentials: a GRANT or REVOKE a
# test makes holds at once (production clusters cache them for 2 s).
roles_validity: 0ms
permissions_validity: 0ms
credentials_validity: 0ms
client_encryption_options:
  enabled: true
  optional: false
  require_client_auth: true
  keystore: $TLS_DIR/node.p12
  keystore_password: cqlgen-test
  truststore: $TLS_DIR/truststore.p12
  truststore_password: cqlgen-test
  store_type: PKCS12
EOFS
    fi
    if [[ -n "${CQLGEN_CASSANDRA_YAML:-}" ]]; then
        printf '# From CQLGEN_CASSANDRA_YAML:\n%s\n' "$CQLGEN_CASSANDRA_YAML" >>"$conf/cassandra.yaml"
    fi
    cat >"$conf/logback.xml" <<EOF
<!-- Quiet: warnings and errors only, to a file; nothing on the console. -->
<configuration scan="false">
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$LOG_DIR/system.log</file>
    <encoder>
      <pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern>
    </encoder>
  </appender>
  <root level="${CQLGEN_CASSANDRA_LOG_LEVEL:-WARN}">
    <appender-ref ref="FILE"/>
  </root>
</configuration>
EOF
}

# write_tls generates the secured node's certificates with openssl: a CA,
# the node's certificate (for its address) in a PKCS12 keystore, the CA in
# a truststore (keytool: Java's trusted-certificate entries), and a client
# certificate with its key in PEM, for Go. Each start makes new ones.
write_tls() {
    command -v openssl >/dev/null || die "openssl is needed for a secured node's certificates"
    command -v keytool >/dev/null || die "keytool (JDK) is needed for a secured node's truststore"
    mkdir -p "$TLS_DIR"
    (
        cd "$TLS_DIR"
        local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
        openssl req -x509 "${ec[@]}" -days 3650 -subj "/CN=cqlgen test CA" \
            -addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign \
            -keyout ca-key.pem -out ca.pem
        openssl req "${ec[@]}" -subj "/CN=$HOST" -keyout node-key.pem -out node.csr
        printf 'subjectAltName=IP:%s\nextendedKeyUsage=serverAuth\n' "$HOST" >node.ext
        openssl x509 -req -in node.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
            -days 3650 -extfile node.ext -out node.pem
        openssl pkcs12 -export -in node.pem -inkey node-key.pem -name node \
            -passout pass:cqlgen-test -out node.p12
        keytool -importcert -noprompt -alias ca -file ca.pem -storetype PKCS12 \
            -keystore truststore.p12 -storepass cqlgen-test
        openssl req "${ec[@]}" -subj "/CN=cqlgen-client" -keyout client-key.pem -out client.csr
        printf 'extendedKeyUsage=clientAuth\n' >client.ext
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
            -days 3650 -extfile client.ext -out client.pem
        rm -f ./*.csr ./*.ext ./*.srl
    ) >"$LOG_DIR/tls.log" 2>&1 || { cat "$LOG_DIR/tls.log" >&2; die "could not generate the certificates in $TLS_DIR"; }
}

# jvm_options fills the JVM_OPTS array.
jvm_options() {
    local heap="${MAX_HEAP_SIZE:-1G}" young="${HEAP_NEWSIZE:-128M}"
    JVM_OPTS=(
        # Unlike Cassandra's scripts, do not start with the whole heap: G1
        # spreads allocations over every committed region, so -Xms1G ends up
        # resident after a few test runs (~1 GiB RSS) while a test node uses
        # about 300 MiB of it. Starting at 256M it grows only when needed.
        -Xms256M -Xmx"$heap"
        # A small fixed young generation: the same reasoning.
        -Xmn"$young"
        -XX:+UseG1GC
        # Cassandra's own default (jvm-server.options); threads are many.
        -Xss256k
        # Fail fast instead of limping along; no hsperfdata file in /tmp.
        -XX:+ExitOnOutOfMemoryError
        -XX:+PerfDisableSharedMem
        -Djava.net.preferIPv4Stack=true

        # JDK 17 module flags, verbatim from conf/jvm17-server.options.
        -Djdk.attach.allowAttachSelf=true
        --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
        --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
        --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
        --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
        --add-exports java.sql/java.sql=ALL-UNNAMED
        --add-exports java.base/java.lang.ref=ALL-UNNAMED
        --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
        --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
        --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
        --add-opens java.base/java.lang.module=ALL-UNNAMED
        --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
        --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
        --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
        --add-opens java.base/jdk.internal.math=ALL-UNNAMED
        --add-opens java.base/jdk.internal.module=ALL-UNNAMED
        --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
        --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
        --add-opens java.base/sun.nio.ch=ALL-UNNAMED
        --add-opens java.base/java.io=ALL-UNNAMED
        --add-opens java.base/java.lang.reflect=ALL-UNNAMED
        --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
        --add-opens java.base/java.lang=ALL-UNNAMED
        --add-opens java.base/java.util=ALL-UNNAMED
        -Dio.netty.tryReflectionSetAccessible=true
        -Dio.netty.allocator.useCacheForAllThreads=true
        -Dio.netty.allocator.maxOrder=11

        # Single node: nobody to gossip with, so do not wait for gossip to
        # settle, for the ring, or before creating the default superuser.
        # cluster.sh starts its nodes one after another, each once the one
        # before answers CQL, and waits for them to see each other.
        -Dcassandra.skip_wait_for_gossip_to_settle=0
        -Dcassandra.ring_delay_ms=1000
        -Dcassandra.superuser_setup_delay_ms=0
        # ... nor sleep 2 s at shutdown so peers hear about it.
        -Dcassandra.shutdown_announce_in_ms=0
        # Throw-away data: never fsync and do not flush the system/schema
        # tables after every change. CREATE/DROP KEYSPACE and TABLE become
        # fast, which matters with a fresh keyspace per test.
        -Dcassandra.skip_sync=true
        -Dcassandra.unsafesystem=true
        # Skip measuring the memtable per-row overhead at startup (about 1.5 s
        # of inserting 100k rows on two cores); 180 is what 5.0 measures here.
        -Dcassandra.memtable.row_overhead_size=180
        # Do not load the native BoringSSL library: the JDK's TLS serves a
        # secured node.
        -Dcassandra.disable_tcactive_openssl=true
        # No cassandra.jmx.*.port unless CQLGEN_CASSANDRA_JMX_PORT: JMX
        # stays off (no RMI server, no port 7199 to collide on). nodetool
        # is not needed by the tests.

        -Dcassandra.config="file://$NODE_DIR/conf/cassandra.yaml"
        -Dlogback.configurationFile="$NODE_DIR/conf/logback.xml"
        -Dcassandra.logdir="$LOG_DIR"
        -Dcassandra.storagedir="$NODE_DIR/data"
    )
    # jamm measures object sizes; Cassandra's scripts always load it as an
    # agent (without it, sizes fall back to slower guessing).
    local jamm
    jamm="$(compgen -G "$DIST/lib/jamm-*.jar" | head -n 1 || true)"
    [[ -z "$jamm" ]] || JVM_OPTS+=(-javaagent:"$jamm")
    [[ -z "$DC" ]] || JVM_OPTS+=(-Dcassandra-rackdc.properties="file://$NODE_DIR/conf/cassandra-rackdc.properties")
    # Local JMX (127.0.0.1 only), at a port of its own per node.
    [[ -z "$JMX_PORT" ]] || JVM_OPTS+=(-Dcassandra.jmx.local.port="$JMX_PORT")
    if [[ -n "${CQLGEN_CASSANDRA_JVM_OPTS:-}" ]]; then
        local extra
        read -r -a extra <<<"$CQLGEN_CASSANDRA_JVM_OPTS"
        JVM_OPTS+=("${extra[@]}")
    fi
}

java_bin() {
    local java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
    command -v "$java" >/dev/null || die "java (JDK 17) is needed to run Cassandra"
    local major
    major="$("$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
    [[ "$major" == 17 ]] || log "warning: Cassandra 5.0 is tested on Java 11 and 17; found Java ${major:-?}"
    printf '%s\n' "$java"
}

# wait_ready waits for a real CQL query, or fails with the log tail.
wait_ready() {
    local pid="$1" started="$2" version rc=0
    cqlping_auth
    version="$(CQLPING_PASSWORD=cassandra "$CQLPING" -addr "$HOST:$PORT" -timeout "${START_TIMEOUT}s" -pid "$pid" "${CQLPING_ARGS[@]}")" || rc=$?
    if ((rc == 0)); then
        secure && version="$version (secured: logins, roles, mutual TLS)"
        log "Cassandra $version ready on $HOST:$PORT after $((SECONDS - started))s (pid $pid, RSS $(rss_of "$pid"))"
        return
    fi
    if ((rc == 2)); then
        log "Cassandra exited during startup; last log lines:"
    else
        log "Cassandra did not answer CQL within ${START_TIMEOUT}s; last log lines:"
    fi
    show_logs 50 >&2
    if our_pid >/dev/null; then
        stop_node
    fi
    exit 1
}

show_logs() {
    local n="${1:-50}" f
    for f in "$LOG_DIR/system.log" "$LOG_DIR/stdout.log"; do
        if [[ -s "$f" ]]; then
            printf '==> %s <==\n' "$f"
            tail -n "$n" "$f"
        fi
    done
}

# ---------------------------------------------------------------- commands

# start_node starts the node afresh, its data wiped; with "keep" (resume),
# it starts the node of the last start again, with the data and
# configuration it had: a node coming back after an outage.
start_node() {
    local started=$SECONDS pid keep="${1:-}"
    ensure_dist
    if pid="$(our_pid)"; then
        log "our Cassandra is already running (pid $pid)"
        [[ -x "$CQLPING" ]] || build_cqlping
        wait_ready "$pid" "$started"
        return
    fi
    if port_open "$HOST" "$PORT"; then
        # A resume must bring our node back: another process answering
        # in its place is a failure, not a node to use.
        [[ -z "$keep" ]] || die "something else answers on $HOST:$PORT; not resuming our node in $NODE_DIR over it"
        log "something else already answers on $HOST:$PORT; not starting another node."
        log "use it with CASSANDRA_HOSTS=$HOST:$PORT"
        return
    fi
    port_open "$HOST" "$STORAGE_PORT" &&
        die "port $HOST:$STORAGE_PORT is taken; set CQLGEN_CASSANDRA_STORAGE_PORT"

    if [[ -e "$NODE_DIR" && ! -e "$NODE_DIR/$MARKER" ]]; then
        die "$NODE_DIR exists and was not made by this script; refusing to wipe it (set CQLGEN_CASSANDRA_DIR)"
    fi
    if [[ -n "$keep" ]]; then
        [[ -f "$NODE_DIR/conf/cassandra.yaml" ]] || die "no node to resume in $NODE_DIR; start it first"
    else
        rm -rf "$NODE_DIR"
        mkdir -p "$NODE_DIR"
        touch "$NODE_DIR/$MARKER"
        write_config
    fi
    local java
    java="$(java_bin)"
    jvm_options

    # Cassandra calls mlockall() at startup. As root (CI) that succeeds and
    # makes the whole committed heap resident at once (~1.5 GiB RSS for an
    # idle node). Without CAP_IPC_LOCK it fails with a harmless warning, as
    # it does for any non-root user, and memory is touched only as used.
    local nolock=()
    if command -v setpriv >/dev/null && [[ "$(id -u)" == 0 ]]; then
        nolock=(setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock)
    fi

    # setsid: own session, so the node outlives this script and the caller's
    # Ctrl-C; all three standard streams are redirected so a Makefile that
    # runs `start` is not left waiting on our stdout. The inner bash records
    # its own pid and then becomes java, so the pidfile names the JVM.
    # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
    setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDFILE" \
        "${nolock[@]}" "$java" "${JVM_OPTS[@]}" -cp "$DIST/lib/*" \
        org.apache.cassandra.service.CassandraDaemon \
        </dev/null >"$LOG_DIR/stdout.log" 2>&1 &
    # Compile the probe while the JVM boots; without it, take the JVM down.
    if ! (build_cqlping); then
        sleep 1
        our_pid >/dev/null && stop_node
        exit 1
    fi
    local i
    for ((i = 0; i < 50; i++)); do
        [[ -s "$PIDFILE" ]] && break
        sleep 0.1
    done
    [[ -s "$PIDFILE" ]] || die "Cassandra did not start; see $LOG_DIR/stdout.log"
    pid="$(<"$PIDFILE")"
    log "started Cassandra $CASSANDRA_VERSION (pid $pid) in $NODE_DIR; waiting up to ${START_TIMEOUT}s for CQL"
    wait_ready "$pid" "$started"
}

stop_node() {
    local pid
    if ! pid="$(our_pid)"; then
        log "not running"
        rm -f "$PIDFILE"
        return
    fi
    log "stopping Cassandra (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while our_pid >/dev/null && ((SECONDS < deadline)); do
        sleep 0.2
    done
    if our_pid >/dev/null; then
        log "still running after ${STOP_TIMEOUT}s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        while our_pid >/dev/null; do
            sleep 0.1
        done
    fi
    rm -f "$PIDFILE"
    log "stopped"
}

# kill_node kills the node at once, as a crash or a power cut would: no
# drain, no flush; what it had acknowledged is in its commit log.
kill_node() {
    local pid
    if ! pid="$(our_pid)"; then
        log "not running"
        return
    fi
    log "killing Cassandra (pid $pid)"
    kill -KILL "$pid" 2>/dev/null || true
    # Gone means gone from /proc (or a zombie), not only its command line
    # emptied: a dying JVM loses that before its sockets close. Then the
    # port must be free, so that a resume right after starts our node
    # again rather than find the dead one still answering.
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while [[ -r "/proc/$pid/stat" && "$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]] && ((SECONDS < deadline)); do
        sleep 0.1
    done
    while port_open "$HOST" "$PORT" && ((SECONDS < deadline)); do
        sleep 0.1
    done
    port_open "$HOST" "$PORT" && die "killed pid $pid, but $HOST:$PORT still answers after ${STOP_TIMEOUT}s"
    rm -f "$PIDFILE"
    log "killed"
}

status_node() {
    local pid
    if ! pid="$(our_pid)"; then
        if port_open "$HOST" "$PORT"; then
            log "our node is not running, but something else answers on $HOST:$PORT"
        else
            log "not running"
        fi
        return 3
    fi
    [[ -x "$CQLPING" ]] || build_cqlping
    local version
    cqlping_auth
    if version="$(CQLPING_PASSWORD=cassandra "$CQLPING" -addr "$HOST:$PORT" -timeout 0s "${CQLPING_ARGS[@]}")"; then
        log "running: Cassandra $version on $HOST:$PORT (pid $pid, RSS $(rss_of "$pid"))"
        return 0
    fi
    log "running (pid $pid) but not answering CQL on $HOST:$PORT yet"
    return 1
}

# env_node prints the CASSANDRA_* variables that reach the node, as the
# superuser over mutual TLS when it is secured, one a line for `export`.
env_node() {
    printf 'CASSANDRA_HOSTS=%s:%s\n' "$HOST" "$PORT"
    if secure; then
        printf 'CASSANDRA_USERNAME=cassandra\nCASSANDRA_PASSWORD=cassandra\n'
        printf 'CASSANDRA_TLS_CA=%s\nCASSANDRA_TLS_CERT=%s\nCASSANDRA_TLS_KEY=%s\n' \
            "$TLS_DIR/ca.pem" "$TLS_DIR/client.pem" "$TLS_DIR/client-key.pem"
    fi
}

# nodetool runs Cassandra's nodetool, from the distribution's jars (the
# assembled distribution has no bin/nodetool), against the node's JMX.
nodetool_node() {
    [[ -n "$JMX_PORT" ]] || die "nodetool needs the node's JMX port: start the node with CQLGEN_CASSANDRA_JMX_PORT set"
    [[ -d "$DIST/lib" ]] || die "no distribution in $DIST: start the node first"
    local java
    java="$(java_bin)"
    # Its history file goes to the node's directory, not ~/.cassandra; its
    # DEBUG and INFO lines (no logback configuration) are left out.
    "$java" --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-exports java.base/jdk.internal.ref=ALL-UNNAMED \
        --add-opens java.base/java.nio=ALL-UNNAMED -Duser.home="$NODE_DIR" -cp "$DIST/lib/*" \
        org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$JMX_PORT" "$@" 2>&1 | grep -v ' DEBUG \| INFO '
    return "${PIPESTATUS[0]}"
}

main() {
    case "${1:-}" in
    nodetool)
        shift
        nodetool_node "$@"
        ;;
    start) start_node ;;
    resume) start_node keep ;;
    stop) stop_node ;;
    kill) kill_node ;;
    status) status_node ;;
    logs) show_logs "${2:-50}" ;;
    env) env_node ;;
    *)
        printf 'usage: %s start|resume|stop|kill|status|logs [lines]|env|nodetool ARGS\n' "$0" >&2
        exit 2
        ;;
    esac
}

main "$@"
