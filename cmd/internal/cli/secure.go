package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// What the commands need of a secured cluster (logins, roles, TLS), and
// the errors that say what is missing: docs/runbook.md, "Permissions".

// denied matches Cassandra's refusal of a request for want of a
// permission: "User ci has no CREATE permission on <all keyspaces> or any
// of its parents".
var denied = regexp.MustCompile(`User (\S+) has no (\w+) permission on <([^>]*)>`)

// explainDenied adds to an error of a request the server refused for want
// of a permission the role that lacks it and the GRANT that gives it, with
// a pointer to the runbook's list of what each command needs. Any other
// error comes back as it was.
func explainDenied(err error) error {
	var re gocql.RequestError
	if err == nil || !errors.As(err, &re) || re.Code() != gocql.ErrCodeUnauthorized {
		return err
	}
	m := denied.FindStringSubmatch(re.Message())
	if m == nil {
		return fmt.Errorf("%w (the role in CASSANDRA_USERNAME lacks a permission: see docs/runbook.md, \"Permissions\")", err)
	}
	role, perm, resource := m[1], m[2], grantResource(m[3])
	return fmt.Errorf("%w\nrole %s lacks %s on %s; the grant: GRANT %s ON %s TO %s; (what each command needs: docs/runbook.md, \"Permissions\")",
		err, role, perm, resource, perm, resource, quoteRole(role))
}

// grantResource turns a resource as Cassandra names it in errors
// ("table ks.t", "keyspace ks", "all keyspaces") into its CQL in a GRANT.
func grantResource(r string) string {
	kind, name, _ := strings.Cut(r, " ")
	switch kind {
	case "table", "keyspace", "function", "role":
		return strings.ToUpper(kind) + " " + name
	}
	return strings.ToUpper(r)
}

var plainRole = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// quoteRole quotes a role name that CQL would otherwise fold to lower
// case or refuse.
func quoteRole(role string) string {
	if plainRole.MatchString(role) {
		return role
	}
	return `"` + strings.ReplaceAll(role, `"`, `""`) + `"`
}

// explainConnect says in plain words why a session could not be opened
// when the cause is a login or TLS, which gocql reports as "unable to
// discover protocol version" and a reset connection. A TLS mismatch is
// told apart by a short handshake with the first host: a node that
// completes it expects TLS, one that answers in plain CQL does not. The
// original error follows the explanation; it holds no password.
func (c *clusterEnv) explainConnect(err error) error {
	msg := err.Error()
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(msg, x) {
				return true
			}
		}
		return false
	}
	if c.TLS != nil && !has("remote error: tls:", "x509:", "failed to verify certificate", "first record does not look like") &&
		has("no response to connection startup", "i/o timeout", "EOF", "connection reset", "no connections were made") {
		// With TLS 1.3 a node's refusal of the client's certificate
		// (or of none) comes after the client's side of the handshake
		// is done, in the first read: on a busy node, after gocql gave
		// up waiting. Ask once more, waiting longer, for its alert.
		if aerr := handshakeAlert(c.Hosts[0], c.TLS); aerr != nil {
			msg += "; then: " + aerr.Error()
		}
	}
	var why string
	switch {
	case has("authentication required"):
		why = fmt.Sprintf("the cluster requires a login: set %s and %s", clusterenv.Username, clusterenv.Password)
	case has("and/or password are incorrect"):
		why = fmt.Sprintf("the cluster refused the login of role %s (%s): a wrong %s, or no such role WITH LOGIN = true", c.Username, clusterenv.Username, clusterenv.Password)
	case c.TLS != nil && has("first record does not look like a TLS handshake"):
		why = fmt.Sprintf("TLS mismatch: the client asks for TLS (%s), but the node answers in plain CQL: its client_encryption_options are off. Unset the %s variables, or turn TLS on at the nodes", c.tlsVars(), "CASSANDRA_TLS")
	case c.TLS != nil && has("x509:", "failed to verify certificate"):
		why = fmt.Sprintf("TLS: the node's certificate is not trusted: set %s to the PEM file of the CA that signed the nodes' certificates, and %s to the name they carry if it is not the host's", clusterenv.TLSCA, clusterenv.ServerName)
	case c.TLS != nil && has("bad certificate", "certificate required", "unknown certificate authority", "unknown certificate", "certificate expired", "certificate revoked"):
		if len(c.TLS.Certificates) == 0 {
			why = fmt.Sprintf("TLS: the node requires a client certificate (mutual TLS, require_client_auth): set %s and %s", clusterenv.TLSCert, clusterenv.TLSKey)
		} else {
			why = fmt.Sprintf("TLS: the node refused the client certificate of %s: it is not signed by a CA the nodes trust, or has expired", clusterenv.TLSCert)
		}
	case c.TLS == nil && has("connection reset", "EOF", "broken pipe", "i/o timeout", "no connections were made"):
		if speaksTLS(c.Hosts[0]) {
			why = fmt.Sprintf("TLS mismatch: the node expects TLS (client_encryption_options), and the client speaks plain CQL: set %s to the PEM file of the CA that signed the nodes' certificates (or %s=true for the system's roots), and for mutual TLS %s and %s", clusterenv.TLSCA, clusterenv.TLS, clusterenv.TLSCert, clusterenv.TLSKey)
		}
	}
	if why == "" {
		return err
	}
	return fmt.Errorf("%s\n\t(%w)", why, err)
}

// tlsVars names the TLS variables that are set, for a message.
func (c *clusterEnv) tlsVars() string {
	if c.TLS == nil {
		return ""
	}
	var set []string
	if c.TLS.RootCAs != nil {
		set = append(set, clusterenv.TLSCA)
	}
	if len(c.TLS.Certificates) > 0 {
		set = append(set, clusterenv.TLSCert, clusterenv.TLSKey)
	}
	if len(set) == 0 {
		set = append(set, clusterenv.TLS)
	}
	return strings.Join(set, ", ")
}

// probeTimeout bounds speaksTLS. It runs only once a connection failed,
// and a node's first handshakes are slow (its JVM not warmed up): a short
// one took a busy TLS node for a plain one.
const probeTimeout = 10 * time.Second

// speaksTLS reports whether the node at host (host[:port], 9042 by
// default) completes a TLS handshake, or refuses one with a TLS alert: a
// node that speaks plain CQL answers a ClientHello with no TLS record.
// Nothing is verified and no certificate is sent: it only tells the two
// kinds of listener apart.
func speaksTLS(host string) bool {
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "9042")
	}
	d := &net.Dialer{Timeout: probeTimeout}
	conn, err := d.Dial("tcp", host)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(probeTimeout))
	// The probe only tells a TLS listener from a plain one, and sends
	// nothing past the handshake: no certificate is to be trusted.
	tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true}) // #nosec G402
	err = tc.Handshake()
	var alert tls.AlertError
	return err == nil || errors.As(err, &alert) || strings.Contains(fmt.Sprint(err), "remote error: tls:")
}

// handshakeAlert connects to the node at host (host[:port], 9042 by
// default) over TLS as the client does (cfg, the node's certificate
// verified), sends an OPTIONS frame and waits, probeTimeout at most, for
// the first byte of its answer: nil when the node answers (or says
// nothing), else the error that ended the wait, a TLS alert from a node
// that refused the client's certificate among them.
func handshakeAlert(host string, cfg *tls.Config) error {
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "9042")
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: probeTimeout}, "tcp", host, cfg.Clone())
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(probeTimeout))
	// Protocol v4, stream 0, OPTIONS, no body.
	if _, err := conn.Write([]byte{0x04, 0, 0, 0, 0x05, 0, 0, 0, 0}); err != nil {
		return err
	}
	var b [1]byte
	if _, err := conn.Read(b[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return nil
}
