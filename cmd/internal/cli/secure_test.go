package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// refused is a request error as gocql returns one: a code and the
// server's message.
type refused struct {
	code int
	msg  string
}

func (r refused) Code() int       { return r.code }
func (r refused) Message() string { return r.msg }
func (r refused) Error() string   { return r.msg }

// TestExplainDenied: a request refused for want of a permission names the
// role, the permission, the resource and the GRANT, in CQL; other errors
// are left as they are.
func TestExplainDenied(t *testing.T) {
	for _, tc := range []struct {
		msg, want string
	}{
		{"User ci2 has no MODIFY permission on <table shop.cqlgen_migrations_lock> or any of its parents",
			"role ci2 lacks MODIFY on TABLE shop.cqlgen_migrations_lock; the grant: GRANT MODIFY ON TABLE shop.cqlgen_migrations_lock TO ci2;"},
		{"User deploy has no CREATE permission on <all keyspaces> or any of its parents",
			"the grant: GRANT CREATE ON ALL KEYSPACES TO deploy;"},
		{"User CI-Role has no ALTER permission on <keyspace shop> or any of its parents",
			`the grant: GRANT ALTER ON KEYSPACE shop TO "CI-Role";`},
		{"You have to be logged in and not anonymous to perform this request",
			"the role in CASSANDRA_USERNAME lacks a permission"},
	} {
		err := explainDenied(fmt.Errorf("line 3: %w", refused{gocql.ErrCodeUnauthorized, tc.msg}))
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "line 3: "+tc.msg) ||
			!strings.Contains(err.Error(), `docs/runbook.md, "Permissions"`) {
			t.Errorf("%s:\n%v\nwant %q", tc.msg, err, tc.want)
		}
		var re gocql.RequestError
		if !errors.As(err, &re) {
			t.Errorf("the explained error lost the driver's: %v", err)
		}
	}
	other := refused{gocql.ErrCodeInvalid, "User x has no MODIFY permission on <table a.b>"}
	if err := explainDenied(other); err != error(other) {
		t.Errorf("an invalid request was explained: %v", err)
	}
	if explainDenied(nil) != nil {
		t.Error("explainDenied(nil) is not nil")
	}
}

// selfSigned is a server certificate for 127.0.0.1, and the path of a
// PEM file of it, for a client to trust.
func selfSigned(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "node"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "node.pem")
	write(t, path, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, path
}

// listen serves each connection with serve until the test ends, and
// returns the address.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				serve(c)
			}()
		}
	}()
	return l.Addr().String()
}

// tlsNode is a listener that speaks TLS only, as a node with
// client_encryption_options on (and require_client_auth, with
// clientAuth, trusting no CA): what it reads after the handshake is
// dropped. It returns its address and the PEM file of its certificate.
func tlsNode(t *testing.T, clientAuth tls.ClientAuthType) (string, string) {
	cert, path := selfSigned(t)
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: clientAuth, ClientCAs: x509.NewCertPool()}
	return listen(t, func(c net.Conn) {
		tc := tls.Server(c, cfg)
		if tc.Handshake() == nil {
			_, _ = io.Copy(io.Discard, tc)
		}
	}), path
}

// plainNode is a listener that answers whatever it reads with a CQL
// protocol error frame, as a node without TLS answers a ClientHello.
func plainNode(t *testing.T) string {
	return listen(t, func(c net.Conn) {
		buf := make([]byte, 512)
		if _, err := c.Read(buf); err != nil {
			return
		}
		msg := "Invalid or unsupported protocol version"
		frame := []byte{0x84, 0, 0, 0, 0, 0, 0, 0, byte(6 + len(msg)), 0, 0, 0, 0x0a, 0, byte(len(msg))}
		_, _ = c.Write(append(frame, msg...))
	})
}

// TestSpeaksTLS tells a TLS listener (with or without client
// certificates required) from a plain one.
func TestSpeaksTLS(t *testing.T) {
	if addr, _ := tlsNode(t, tls.NoClientCert); !speaksTLS(addr) {
		t.Error("a TLS listener is taken for a plain one")
	}
	if addr, _ := tlsNode(t, tls.RequireAndVerifyClientCert); !speaksTLS(addr) {
		t.Error("a listener that requires client certificates is taken for a plain one")
	}
	if speaksTLS(plainNode(t)) {
		t.Error("a plain listener is taken for a TLS one")
	}
	if speaksTLS("127.0.0.1:1") {
		t.Error("a closed port is taken for TLS")
	}
}

// TestConnectTLSMismatch: connect, against listeners standing in for
// nodes, says which side wants TLS, and which certificate is missing or
// untrusted, above the driver's words; no password is in the message.
func TestConnectTLSMismatch(t *testing.T) {
	ca, cert, key := pemFiles(t)
	tlsAddr, _ := tlsNode(t, tls.NoClientCert)
	mtlsAddr, nodeCA := tlsNode(t, tls.RequireAndVerifyClientCert)
	plainAddr := plainNode(t)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"plain client, TLS node", map[string]string{clusterenv.Hosts: tlsAddr}, "TLS mismatch: the node expects TLS (client_encryption_options), and the client speaks plain CQL: set CASSANDRA_TLS_CA"},
		{"TLS client, plain node", map[string]string{clusterenv.Hosts: plainAddr, clusterenv.TLSCA: ca}, "TLS mismatch: the client asks for TLS (CASSANDRA_TLS_CA), but the node answers in plain CQL"},
		{"untrusted node", map[string]string{clusterenv.Hosts: tlsAddr, clusterenv.TLSCA: ca}, "TLS: the node's certificate is not trusted: set CASSANDRA_TLS_CA"},
		{"no client certificate", map[string]string{clusterenv.Hosts: mtlsAddr, clusterenv.TLSCA: nodeCA}, "TLS: the node requires a client certificate (mutual TLS, require_client_auth): set CASSANDRA_TLS_CERT and CASSANDRA_TLS_KEY"},
		{"untrusted client certificate", map[string]string{clusterenv.Hosts: mtlsAddr, clusterenv.TLSCA: nodeCA, clusterenv.TLSCert: cert, clusterenv.TLSKey: key}, "TLS: the node refused the client certificate of CASSANDRA_TLS_CERT"},
	} {
		env := map[string]string{clusterenv.Username: "ci", clusterenv.Password: "s3cret-pw"}
		for k, v := range tc.env {
			env[k] = v
		}
		s, _, err := connect(envOf(env))
		if err == nil {
			s.Close()
			t.Errorf("%s: connected", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// A node that refuses the client's certificate says so after the
// client's side of the TLS 1.3 handshake is done; when gocql gave up
// before the alert came (a busy node), explainConnect asks again and
// names the refusal, with a certificate the node does not trust and
// with none.
func TestExplainConnectAsksAgainAfterATimeout(t *testing.T) {
	addr, nodePEM := tlsNode(t, tls.RequireAndVerifyClientCert)
	pemBytes, err := os.ReadFile(nodePEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatal("the node's certificate does not parse")
	}
	clientCert, _ := selfSigned(t) // signed by no CA the node trusts
	timedOut := "gocql: unable to create session: unable to discover protocol version: gocql: no response to connection startup within timeout"
	for _, tc := range []struct {
		certs []tls.Certificate
		want  string
	}{
		{[]tls.Certificate{clientCert}, "TLS: the node refused the client certificate of CASSANDRA_TLS_CERT"},
		{nil, "TLS: the node requires a client certificate"},
	} {
		c := &clusterEnv{Hosts: []string{addr}, TLS: &tls.Config{RootCAs: roots, Certificates: tc.certs, MinVersion: tls.VersionTLS13}}
		got := c.explainConnect(errors.New(timedOut)).Error()
		if !strings.HasPrefix(got, tc.want) || !strings.Contains(got, timedOut) {
			t.Errorf("%d client certificates:\n%s\nwant %q", len(tc.certs), got, tc.want)
		}
	}
}

// TestExplainConnect: the driver's words for a refused login or a
// certificate the node refused become a plain sentence naming the
// variables; an error of another kind is left as it is.
func TestExplainConnect(t *testing.T) {
	plain := &clusterEnv{Hosts: []string{"127.0.0.1:1"}, Username: "ci", Password: "s3cret-pw"}
	withCA := &clusterEnv{Hosts: []string{"127.0.0.1:1"}, TLS: &tls.Config{RootCAs: x509.NewCertPool()}}
	withCert := &clusterEnv{Hosts: []string{"127.0.0.1:1"}, TLS: &tls.Config{RootCAs: x509.NewCertPool(), Certificates: []tls.Certificate{{}}}}
	for _, tc := range []struct {
		c         *clusterEnv
		err, want string
	}{
		{plain, `unable to discover protocol version: authentication required (using "org.apache.cassandra.auth.PasswordAuthenticator")`, "the cluster requires a login: set CASSANDRA_USERNAME and CASSANDRA_PASSWORD"},
		{plain, "unable to discover protocol version: Provided username ci and/or password are incorrect", "the cluster refused the login of role ci (CASSANDRA_USERNAME): a wrong CASSANDRA_PASSWORD"},
		{withCA, "unable to discover protocol version: remote error: tls: bad certificate", "TLS: the node requires a client certificate (mutual TLS, require_client_auth): set CASSANDRA_TLS_CERT and CASSANDRA_TLS_KEY"},
		{withCert, "unable to discover protocol version: remote error: tls: unknown certificate authority", "TLS: the node refused the client certificate of CASSANDRA_TLS_CERT"},
		{plain, "unable to discover protocol version: dial tcp 127.0.0.1:1: connect: connection refused", ""},
	} {
		got := tc.c.explainConnect(errors.New(tc.err)).Error()
		if tc.want == "" {
			if got != tc.err {
				t.Errorf("%s: explained as %q", tc.err, got)
			}
			continue
		}
		if !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, "("+tc.err+")") || strings.Contains(got, "s3cret-pw") {
			t.Errorf("%s:\n%s\nwant %q", tc.err, got, tc.want)
		}
	}
}
