package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// pemFiles writes a CA certificate, and a client certificate it signed
// with its key, as PEM files; it returns their paths.
func pemFiles(t *testing.T) (ca, cert, key string) {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cqlgen test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	clientKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	clientTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "cqlgen-ci"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	clientDER, err := x509.CreateCertificate(rand.Reader, clientTmpl, caTmpl, &clientKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, cert, key = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	write(t, ca, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	write(t, cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: clientDER})))
	write(t, key, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	return ca, cert, key
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestClusterEnvFull: every variable given, each reaches the driver's
// configuration.
func TestClusterEnvFull(t *testing.T) {
	ca, cert, key := pemFiles(t)
	c, err := readClusterEnv(envOf(map[string]string{
		clusterenv.Hosts:      " node1.db:9142, node2.db:9142 ,",
		clusterenv.Username:   "ci",
		clusterenv.Password:   "s3cret",
		clusterenv.TLSCA:      ca,
		clusterenv.TLSCert:    cert,
		clusterenv.TLSKey:     key,
		clusterenv.ServerName: "cassandra.internal",
		clusterenv.LocalDC:    "eu-west",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Hosts, "|") != "node1.db:9142|node2.db:9142" {
		t.Errorf("hosts %q", c.Hosts)
	}
	cluster := c.cluster()
	// A local datacenter keeps the session in it: a retry must not reach
	// another datacenter's nodes (the cluster suite caught gocql's
	// DC-aware policy doing so).
	if cluster.HostFilter == nil || cluster.Consistency != gocql.LocalQuorum {
		t.Errorf("local DC: host filter %v, consistency %v", cluster.HostFilter, cluster.Consistency)
	}
	auth, ok := cluster.Authenticator.(gocql.PasswordAuthenticator)
	if !ok || auth.Username != "ci" || auth.Password != "s3cret" {
		t.Errorf("authenticator %#v", cluster.Authenticator)
	}
	if cluster.SslOpts == nil || !cluster.SslOpts.EnableHostVerification {
		t.Fatalf("SslOpts %#v: TLS off, or hosts not verified", cluster.SslOpts)
	}
	tc := cluster.SslOpts.Config
	if tc.ServerName != "cassandra.internal" || tc.InsecureSkipVerify {
		t.Errorf("server name %q, insecure %v", tc.ServerName, tc.InsecureSkipVerify)
	}
	// The CA is the one trusted: the client certificate verifies against
	// the pool, and against nothing else.
	if len(tc.Certificates) != 1 {
		t.Fatalf("%d client certificates", len(tc.Certificates))
	}
	leaf, err := x509.ParseCertificate(tc.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if leaf.Subject.CommonName != "cqlgen-ci" {
		t.Errorf("client certificate %q", leaf.Subject.CommonName)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: tc.RootCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the trusted pool is not the given CA: %v", err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("verification passes with no root at all: the check above proves nothing")
	}
	if cluster.PoolConfig.HostSelectionPolicy == nil || cluster.Consistency != gocql.LocalQuorum {
		t.Errorf("local DC: policy %T, consistency %v", cluster.PoolConfig.HostSelectionPolicy, cluster.Consistency)
	}
}

// TestClusterEnvMinimal: CASSANDRA_HOSTS alone gives plain, anonymous
// connections with the driver's own host selection.
func TestClusterEnvMinimal(t *testing.T) {
	c, err := readClusterEnv(envOf(map[string]string{clusterenv.Hosts: "127.0.0.1:9042"}))
	if err != nil {
		t.Fatal(err)
	}
	cluster := c.cluster()
	if cluster.Authenticator != nil || cluster.SslOpts != nil || cluster.PoolConfig.HostSelectionPolicy != nil {
		t.Errorf("minimal config: auth %v, tls %v, policy %T", cluster.Authenticator, cluster.SslOpts, cluster.PoolConfig.HostSelectionPolicy)
	}
	// CASSANDRA_TLS=true alone: TLS against the system's roots.
	c, err = readClusterEnv(envOf(map[string]string{clusterenv.Hosts: "db:9142", clusterenv.TLS: "true"}))
	if err != nil || c.TLS == nil || c.TLS.RootCAs != nil {
		t.Errorf("CASSANDRA_TLS=true: %v, %+v", err, c)
	}
}

// TestClusterEnvMistakes: each half-given or unusable setting is an error
// that names its variable.
func TestClusterEnvMistakes(t *testing.T) {
	ca, cert, key := pemFiles(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	write(t, notPEM, "not a certificate\n")
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "CASSANDRA_HOSTS is not set"},
		{map[string]string{clusterenv.Hosts: " , "}, "CASSANDRA_HOSTS is not set"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.Password: "x"}, "CASSANDRA_PASSWORD is set but CASSANDRA_USERNAME is not"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.TLSCert: cert}, "CASSANDRA_TLS_CERT and CASSANDRA_TLS_KEY go together"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.TLSKey: key}, "CASSANDRA_TLS_CERT and CASSANDRA_TLS_KEY go together"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.TLSCA: filepath.Join(t.TempDir(), "none.pem")}, "CASSANDRA_TLS_CA: open"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.TLSCA: notPEM}, "holds no PEM certificate"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.TLSCert: ca, clusterenv.TLSKey: key}, "CASSANDRA_TLS_CERT, CASSANDRA_TLS_KEY: tls: private key does not match public key"},
		{map[string]string{clusterenv.Hosts: "h", clusterenv.TLS: "yes please"}, `CASSANDRA_TLS="yes please": want true or false`},
	} {
		_, err := readClusterEnv(envOf(tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.env, err, tc.want)
		}
	}
}

// TestApplyNeedsHosts: apply and diff -live without CASSANDRA_HOSTS say
// which variable to set, and connect to nothing.
func TestApplyNeedsHosts(t *testing.T) {
	t.Chdir(repoRoot)
	var out, errb strings.Builder
	e := &env{stdout: &out, stderr: &errb, dir: repoRoot, getenv: envOf(nil)}
	if code := runApply(e, newFlags(e, "apply", ""), []string{"./example/music"}); code != ExitFailure || !strings.Contains(errb.String(), "CASSANDRA_HOSTS is not set") {
		t.Errorf("apply without hosts = %d\n%s", code, errb.String())
	}
	errb.Reset()
	if code := runDiff(e, newFlags(e, "diff", ""), []string{"-live", "./example/music"}); code != ExitFailure || !strings.Contains(errb.String(), "CASSANDRA_HOSTS is not set") {
		t.Errorf("diff -live without hosts = %d\n%s", code, errb.String())
	}
}
