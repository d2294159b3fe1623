// Command cqlping waits until a Cassandra node answers a real CQL query and
// prints its release_version. cassandra.sh uses it as the readiness probe: an
// open port alone is not enough, the native transport opens before the node
// can serve reads of system tables reliably.
//
//	cqlping -addr 127.0.0.1:9042 -timeout 180s -pid 1234
//
// It exits 0 once `SELECT release_version FROM system.local` succeeds, 1 on
// timeout, and 2 as soon as the process given by -pid has died (no point
// waiting for a node that crashed at startup). With -peers n, it also waits
// until the node knows n other nodes of its cluster (system.peers_v2), each
// with a datacenter: cluster.sh's check that the nodes found each other.
//
// A secured node (cassandra.sh with CQLGEN_CASSANDRA_SECURE=1): -user logs
// in, with the password in $CQLPING_PASSWORD (not on the command line), and
// -ca, -cert, -key speak mutual TLS. A refused login is retried until the
// timeout too: the node creates its default superuser a moment after the
// native port opens.
//
//	CQLPING_PASSWORD=cassandra cqlping -addr 127.0.0.7:9042 -user cassandra \
//		-ca tls/ca.pem -cert tls/client.pem -key tls/client-key.pem
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9042", "host:port of the node")
	timeout := flag.Duration("timeout", 180*time.Second, "how long to keep trying; 0 tries once")
	pid := flag.Int("pid", 0, "give up when this process is gone (0: do not watch)")
	peers := flag.Int("peers", 0, "also wait until the node knows this many peers")
	user := flag.String("user", "", "log in as this role, with the password in $CQLPING_PASSWORD")
	ca := flag.String("ca", "", "speak TLS, trusting the CA of this PEM file")
	cert := flag.String("cert", "", "with -ca: the client certificate (PEM), for mutual TLS")
	key := flag.String("key", "", "with -cert: its private key (PEM)")
	flag.Parse()
	if (*cert != "" || *key != "") && *ca == "" {
		fmt.Fprintln(os.Stderr, "cqlping: -cert and -key go with -ca")
		os.Exit(1)
	}
	tweak := func(c *gocql.ClusterConfig) {
		if *user != "" {
			c.Authenticator = gocql.PasswordAuthenticator{Username: *user, Password: os.Getenv("CQLPING_PASSWORD")}
		}
		if *ca != "" {
			c.SslOpts = &gocql.SslOptions{CaPath: *ca, CertPath: *cert, KeyPath: *key, EnableHostVerification: true}
		}
	}

	// gocql logs every failed dial; while the node boots those are expected.
	gocql.Logger = log.New(io.Discard, "", 0)

	deadline := time.Now().Add(*timeout)
	var lastErr error
	for {
		version, err := ping(*addr, *peers, tweak)
		if err == nil {
			fmt.Println(version)
			return
		}
		lastErr = err
		if *pid > 0 && !alive(*pid) {
			fmt.Fprintf(os.Stderr, "cqlping: process %d exited before CQL was ready (last error: %v)\n", *pid, lastErr)
			os.Exit(2)
		}
		if !time.Now().Before(deadline) {
			fmt.Fprintf(os.Stderr, "cqlping: %s not ready after %s: %v\n", *addr, *timeout, lastErr)
			os.Exit(1)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func ping(addr string, peers int, tweak func(*gocql.ClusterConfig)) (string, error) {
	// A plain dial first: cheap, and keeps gocql out of the common
	// "connection refused" case while the JVM is still loading.
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	conn.Close()

	cluster := gocql.NewCluster(addr)
	cluster.ProtoVersion = 4
	cluster.Consistency = gocql.One
	cluster.ConnectTimeout = 5 * time.Second
	cluster.Timeout = 5 * time.Second
	cluster.DisableInitialHostLookup = true
	cluster.NumConns = 1
	tweak(cluster)
	session, err := cluster.CreateSession()
	if err != nil {
		return "", err
	}
	defer session.Close()
	var version string
	if err := session.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		return "", err
	}
	if peers > 0 {
		n := 0
		it := session.Query("SELECT data_center FROM system.peers_v2").Iter()
		var dc string
		for it.Scan(&dc) {
			if dc != "" {
				n++
			}
		}
		if err := it.Close(); err != nil {
			return "", err
		}
		if n < peers {
			return "", fmt.Errorf("%d of %d peers known", n, peers)
		}
	}
	return version, nil
}

// alive reports whether pid still runs; a zombie counts as dead.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name, which may itself
	// contain spaces or parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
