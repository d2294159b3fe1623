package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// envLogCQL names a file to which the commands append each statement
// they send (a line each: keyspace, attempt, statement), for an operator
// who wants to see what a deploy step sent, and for the tests that
// prove what a run sends and does not.
const envLogCQL = "CQLGEN_LOG_CQL"

// clusterEnv is how to reach a cluster, as the environment says.
type clusterEnv struct {
	Hosts              []string
	Username, Password string
	TLS                *tls.Config // nil: plain connections
	LocalDC            string
	// Timeout is -timeout: how long one statement may take, its retries
	// included (0: defaultTimeout). cluster() gives each attempt the
	// share attemptTimeout says.
	Timeout time.Duration
	logCQL  string // CQLGEN_LOG_CQL
}

// readClusterEnv reads the CASSANDRA_* variables through getenv, as
// clusterenv.Read does.
func readClusterEnv(getenv func(string) string) (*clusterEnv, error) {
	r, err := clusterenv.Read(getenv)
	if err != nil {
		return nil, err
	}
	return &clusterEnv{Hosts: r.Hosts, Username: r.Username, Password: r.Password, TLS: r.TLS, LocalDC: r.LocalDC, logCQL: getenv(envLogCQL)}, nil
}

// cluster turns c into a driver configuration.
func (c *clusterEnv) cluster() *gocql.ClusterConfig {
	cluster := gocql.NewCluster(c.Hosts...)
	budget := c.timeout()
	cluster.Timeout = attemptTimeout(budget)
	cluster.ConnectTimeout = attemptTimeout(budget)
	cluster.MaxWaitSchemaAgreement = budget
	if c.logCQL != "" {
		cluster.QueryObserver = &cqlLog{path: c.logCQL}
	}
	if c.Username != "" {
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.TLS != nil {
		// With a Config of its own, gocql verifies the nodes' certificates
		// unless the Config says otherwise, which this one never does.
		cluster.SslOpts = &gocql.SslOptions{Config: c.TLS, EnableHostVerification: true}
	}
	if c.LocalDC != "" {
		cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(c.LocalDC))
		// gocql's DC-aware policy lists the other datacenters' nodes after
		// the local ones, and a retry goes on to them: a LOCAL_QUORUM
		// then answered from another datacenter's quorum. The filter keeps
		// the session in its datacenter, as gocqlv1.NewClusterDC does.
		cluster.HostFilter = gocql.DataCentreHostFilter(c.LocalDC)
		cluster.Consistency = gocql.LocalQuorum
	}
	return cluster
}

// connect is dial with the default -timeout.
func connect(getenv func(string) string) (*gocql.Session, *clusterEnv, error) {
	return dial(getenv, defaultTimeout)
}

// dial opens a session on the cluster the environment names, with
// timeout as -timeout (retrying a connection that timed out, within
// it), and checks that a CASSANDRA_LOCAL_DC is one of the cluster's
// datacenters: a misspelt one would send every request to a remote
// datacenter. The clusterEnv it returns carries the timeout: its
// session(keyspace) and cluster() use it.
func dial(getenv func(string) string, timeout time.Duration) (*gocql.Session, *clusterEnv, error) {
	c, err := readClusterEnv(getenv)
	if err != nil {
		return nil, nil, err
	}
	c.Timeout = timeout
	s, err := c.createSession(c.cluster())
	if err != nil && c.LocalDC != "" {
		// No node of that datacenter answered: say which there are.
		open := *c
		open.LocalDC = ""
		if any, aerr := open.createSession(open.cluster()); aerr == nil {
			dcs, derr := datacenters(any, open.retrier(nil, ""))
			any.Close()
			if derr == nil && !slices.Contains(dcs, c.LocalDC) {
				return nil, nil, fmt.Errorf("%s=%s is not a datacenter of the cluster, whose datacenters are %s", clusterenv.LocalDC, c.LocalDC, strings.Join(dcs, ", "))
			}
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", strings.Join(c.Hosts, ","), c.explainConnect(err))
	}
	if c.LocalDC != "" {
		dcs, err := datacenters(s, c.retrier(nil, ""))
		if err != nil {
			s.Close()
			return nil, nil, err
		}
		if !slices.Contains(dcs, c.LocalDC) {
			s.Close()
			return nil, nil, fmt.Errorf("%s=%s is not a datacenter of the cluster, whose datacenters are %s", clusterenv.LocalDC, c.LocalDC, strings.Join(dcs, ", "))
		}
	}
	return s, c, nil
}

// datacenters lists the datacenters of the nodes the session knows of.
func datacenters(s *gocql.Session, r *retrier) ([]string, error) {
	var dcs []string
	err := r.do(context.Background(), mayRepeat, "reading the cluster's datacenters", func(ctx context.Context) error {
		dcs = nil
		for _, q := range []string{"SELECT data_center FROM system.local", "SELECT data_center FROM system.peers"} {
			var dc string
			it := s.Query(q).WithContext(ctx).Iter()
			for it.Scan(&dc) {
				if !slices.Contains(dcs, dc) {
					dcs = append(dcs, dc)
				}
			}
			if err := it.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's datacenters: %w", err)
	}
	if len(dcs) == 0 {
		return nil, errors.New("reading the cluster's datacenters: none found")
	}
	slices.Sort(dcs)
	return dcs, nil
}

// defaultTimeout is -timeout's default: a loaded node (a test machine at
// a load of 10, a cluster compacting) can take well over the driver's
// 11 s to answer a schema change.
const defaultTimeout = time.Minute

// timeoutFlag registers -timeout on fs, for a command that talks to the
// cluster; pass its value to dial.
func timeoutFlag(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("timeout", defaultTimeout, "how long one statement may take on the cluster, retries included: a statement that can run twice\nis retried with backoff (one attempt waits up to half of it), and a schema change waits for\nthe nodes to agree on the schema")
}

// parseTimed parses the flags of a command that talks to the cluster and
// checks its -timeout, saying what is wrong: false when the command
// should stop with ExitUsage.
func parseTimed(e *env, fs *flag.FlagSet, args []string, timeout *time.Duration) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if err := checkTimeout(*timeout); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen %s: %v\n", fs.Name(), err)
		return false
	}
	return true
}

// checkTimeout refuses a -timeout too short to be meant.
func checkTimeout(d time.Duration) error {
	if d < time.Second {
		return fmt.Errorf("-timeout %s: want at least 1s", d)
	}
	return nil
}

func (c *clusterEnv) timeout() time.Duration {
	if c.Timeout <= 0 {
		return defaultTimeout
	}
	return c.Timeout
}

// attemptTimeout is how long one attempt waits for a reply within a
// budget: half of it, so that a retry fits, but no less than 11 s when the
// budget allows (a client timeout shorter than the server's own, 10 s at
// most by default, gives up before the coordinator's typed timeout comes).
func attemptTimeout(budget time.Duration) time.Duration {
	return max(budget/2, min(budget, 11*time.Second))
}

// createSession opens a session on cfg, trying again within the budget
// when an attempt timed out (a loaded node is slow to answer the
// handshake); a refused connection or a TLS or authentication failure is
// returned at once.
func (c *clusterEnv) createSession(cfg *gocql.ClusterConfig) (*gocql.Session, error) {
	var s *gocql.Session
	err := c.retrier(nil, "").do(context.Background(), mayRepeat, "connecting", func(context.Context) error {
		var err error
		s, err = cfg.CreateSession()
		if err != nil && !timedOut(err) {
			return permanent{err}
		}
		return err
	})
	return s, err
}

// session opens a session of keyspace, as dial's.
func (c *clusterEnv) session(keyspace string) (*gocql.Session, error) {
	cfg := c.cluster()
	cfg.Keyspace = keyspace
	return c.createSession(cfg)
}

// retrier runs statements within a budget (-timeout), retrying those
// that may run twice while they fail in a way that may pass: no reply in
// time, an unavailable, overloaded or bootstrapping coordinator, a
// server-side read or write timeout, a lost connection. A statement that
// may not run twice gets one attempt. After a schema change succeeds it
// waits, within the same budget, for every node to agree on the schema,
// so that the next statement sees the change wherever it runs.
//
// Make one with clusterEnv.retrier; its exec (statements) and do (any
// idempotent work, as several reads) are what the commands use.
type retrier struct {
	timeout time.Duration
	// w, when set, is told of each retry: "cqlgen apply: ...: retrying".
	w      io.Writer
	prefix string
	// sleep waits between attempts (tests replace it); nil: time's.
	sleep func(context.Context, time.Duration) error
}

// retrier returns a retrier with c's -timeout that reports retries to w
// (nil: silently), each line starting with prefix ("cqlgen apply").
func (c *clusterEnv) retrier(w io.Writer, prefix string) *retrier {
	return &retrier{timeout: c.timeout(), w: w, prefix: prefix}
}

// idempotence says whether a statement may be sent again after an
// attempt whose outcome is unknown (no reply: it may have applied).
type idempotence int

const (
	// runOnce: a second run would do it twice (a counter increment, an
	// append to a list, a DROP without IF EXISTS, a rename, a write of
	// unknown kind): one attempt; an error says it may have applied.
	runOnce idempotence = iota
	// mayRepeat: the same outcome however often it runs: a read, DDL
	// with IF [NOT] EXISTS, ALTER ... WITH an option, a write of
	// absolute values (the caller says so).
	mayRepeat
	// repeatExists: DDL that creates without IF NOT EXISTS (CREATE
	// INDEX, ALTER TABLE ... ADD): run again after it applied, it fails
	// with "already exists"; on a retry (never on the first attempt)
	// that counts as done, as migrate counts it on resuming.
	repeatExists
)

// classify says how statement may be retried, and whether it changes the
// schema (then the nodes' agreement is awaited after it).
func classify(stmt string) (idem idempotence, ddl bool) {
	w := leadingWords(stmt, 8)
	at := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	has := func(words ...string) bool {
		for i := range w {
			if i+len(words) <= len(w) && slices.Equal(w[i:i+len(words)], words) {
				return true
			}
		}
		return false
	}
	switch at(0) {
	case "SELECT":
		return mayRepeat, false
	case "CREATE":
		switch {
		case has("IF", "NOT", "EXISTS"), has("OR", "REPLACE"):
			return mayRepeat, true
		case slices.Contains([]string{"TABLE", "COLUMNFAMILY", "INDEX", "CUSTOM", "TYPE", "MATERIALIZED", "KEYSPACE", "FUNCTION", "AGGREGATE", "TRIGGER"}, at(1)):
			return repeatExists, true
		}
		return runOnce, true
	case "DROP":
		if has("IF", "EXISTS") {
			return mayRepeat, true
		}
		return runOnce, true
	case "ALTER":
		// ALTER TABLE [IF EXISTS] name ADD|WITH|DROP|RENAME|ALTER ...
		i := 2
		if at(1) == "MATERIALIZED" {
			i = 3
		}
		if at(i) == "IF" && at(i+1) == "EXISTS" {
			i += 2
		}
		switch op := at(i + 1); {
		case op == "WITH":
			return mayRepeat, true
		case op == "ADD" && at(i+2) == "IF":
			return mayRepeat, true
		case op == "ADD" && (at(1) == "TABLE" || at(1) == "COLUMNFAMILY" || at(1) == "TYPE"):
			return repeatExists, true
		}
		return runOnce, true
	}
	return runOnce, false
}

// leadingWords returns up to n of the first words of a statement, upper
// case, past comments and blanks, until a parenthesis, a string or an
// operator; a quoted name is one word, as written.
func leadingWords(stmt string, n int) []string {
	var words []string
	s := stmt
	for len(words) < n {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case s == "":
			return words
		case strings.HasPrefix(s, "--"), strings.HasPrefix(s, "//"):
			_, rest, ok := strings.Cut(s, "\n")
			if !ok {
				return words
			}
			s = rest
		case strings.HasPrefix(s, "/*"):
			_, rest, ok := strings.Cut(s[2:], "*/")
			if !ok {
				return words
			}
			s = rest
		case s[0] == '"':
			end := 1
			for end < len(s) && (s[end] != '"' || (end+1 < len(s) && s[end+1] == '"')) {
				if s[end] == '"' {
					end++
				}
				end++
			}
			words = append(words, s[:min(end+1, len(s))])
			s = s[min(end+1, len(s)):]
		default:
			end := strings.IndexFunc(s, func(r rune) bool {
				return !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
			})
			if end == 0 {
				return words
			}
			if end < 0 {
				end = len(s)
			}
			words = append(words, strings.ToUpper(s[:end]))
			s = s[end:]
		}
	}
	return words
}

// exec runs stmt on s, retried as classify says, and after a schema
// change waits for the nodes' agreement. On a retry of repeatExists DDL,
// "already exists" counts as done (exec then returns nil).
func (r *retrier) exec(s *gocql.Session, stmt string, values ...any) error {
	idem, ddl := classify(stmt)
	return r.execAs(s, idem, ddl, stmt, values...)
}

// execAs is exec for a statement whose idempotence the caller knows
// better than its words say: a write of absolute values (mayRepeat).
func (r *retrier) execAs(s *gocql.Session, idem idempotence, ddl bool, stmt string, values ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	err := r.send(ctx, idem, oneLine(stmt), func(ctx context.Context) error {
		return s.Query(stmt, values...).WithContext(ctx).Exec()
	})
	if err != nil || !ddl {
		return err
	}
	return r.agree(ctx, s)
}

// send runs one statement's attempts (exec) as do does; for repeatExists
// DDL, "already exists" from a retry, after an attempt that got no reply,
// counts as done, and is reported.
func (r *retrier) send(ctx context.Context, idem idempotence, what string, exec func(context.Context) error) error {
	tried := 0
	return r.do(ctx, idem, what, func(ctx context.Context) error {
		tried++
		err := exec(ctx)
		if err != nil && idem == repeatExists && tried > 1 && alreadyDone(err) {
			if r.w != nil {
				fmt.Fprintf(r.w, "%s: %s: attempt %d: %v: an earlier attempt, which got no reply, had applied it; taken as done\n", r.prefix, what, tried, err)
			}
			return nil
		}
		return err
	})
}

// agree waits, within ctx, for every node to agree on the schema.
func (r *retrier) agree(ctx context.Context, s *gocql.Session) error {
	err := r.do(ctx, mayRepeat, "waiting for schema agreement", func(ctx context.Context) error {
		return s.AwaitSchemaAgreement(ctx)
	})
	if err != nil {
		return fmt.Errorf("the schema change applied, but the nodes did not agree on the schema within -timeout %s: %w", r.timeout, err)
	}
	return nil
}

// permanent marks an error do must not retry, however it reads.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// passing marks an error do may retry, however it reads: one the caller
// knows to pass (a table system_schema lists, which the node that
// answered does not know yet).
type passing struct{ error }

func (p passing) Unwrap() error { return p.error }

// do runs fn until it succeeds, fails for good, or ctx's deadline (the
// budget, when ctx has none) leaves no room for another attempt; between
// attempts it backs off exponentially, with jitter, from 100 ms up to
// 5 s. Only mayRepeat and repeatExists work is run again. what names the
// work in the retry notes and in the final error.
func (r *retrier) do(ctx context.Context, idem idempotence, what string, fn func(context.Context) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	start := time.Now()
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		var p permanent
		if errors.As(err, &p) {
			return p.error
		}
		if !transient(err) {
			return err
		}
		if idem == runOnce && !notApplied(err) {
			return fmt.Errorf("%w (it may or may not have applied; it is not retried, since running it twice would not be the same)", err)
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		backoff = min(2*backoff, 5*time.Second)
		deadline, _ := ctx.Deadline()
		if ctx.Err() != nil || time.Until(deadline) < wait+time.Second {
			if attempt == 1 {
				return fmt.Errorf("%w (within -timeout %s)", err, r.timeout)
			}
			return fmt.Errorf("%w (%d attempts over %s, -timeout %s)", err, attempt, time.Since(start).Round(100*time.Millisecond), r.timeout)
		}
		if r.w != nil {
			fmt.Fprintf(r.w, "%s: %s: %v; retrying in %s (attempt %d)\n", r.prefix, what, err, wait.Round(10*time.Millisecond), attempt+1)
		}
		sleep := r.sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if serr := sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w (%d attempts, -timeout %s)", err, attempt, r.timeout)
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// transient reports an error that another attempt may not meet: no
// reply in time, no connection, a lost connection, or a coordinator that
// said it is unavailable, overloaded or bootstrapping, or timed out
// waiting for replicas.
func transient(err error) bool {
	var (
		unavailable  *gocql.RequestErrUnavailable
		writeTimeout *gocql.RequestErrWriteTimeout
		readTimeout  *gocql.RequestErrReadTimeout
		casUnknown   *gocql.RequestErrCASWriteUnknown
		reqErr       gocql.RequestError
	)
	var p passing
	switch {
	case errors.As(err, &p):
		return true
	case errors.As(err, &unavailable), errors.As(err, &writeTimeout), errors.As(err, &readTimeout), errors.As(err, &casUnknown):
		return true
	case errors.As(err, &reqErr):
		switch reqErr.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping, gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout:
			return true
		}
		return false
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, gocql.ErrNoStreams),
		errors.Is(err, gocql.ErrTooManyTimeouts), errors.Is(err, gocql.ErrUnavailable):
		return true
	}
	return timedOut(err)
}

// notApplied reports an error that says the request was not carried out:
// no host took it, or the coordinator refused it before doing anything
// (unavailable replicas, overloaded, bootstrapping). Even a statement
// that may not run twice is retried after one.
func notApplied(err error) bool {
	var (
		unavailable *gocql.RequestErrUnavailable
		reqErr      gocql.RequestError
	)
	switch {
	case errors.As(err, &unavailable), errors.Is(err, gocql.ErrNoConnections):
		return true
	case errors.As(err, &reqErr):
		switch reqErr.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping:
			return true
		}
	}
	return false
}

// timedOut reports an error that says an attempt got no reply in time.
func timedOut(err error) bool {
	var ne net.Error
	if errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	// gocql formats some connection errors with %v, losing their type.
	msg := err.Error()
	return strings.Contains(msg, "i/o timeout") || strings.Contains(msg, "no response received from cassandra within timeout")
}

// oneLine shortens a statement for a message: its first line, cut.
func oneLine(stmt string) string {
	s, _, more := strings.Cut(strings.TrimSpace(stmt), "\n")
	if len(s) > 80 {
		s, more = s[:77], true
	}
	if more {
		s += " ..."
	}
	return s
}

// cqlLog appends each statement a session sends to a file
// (CQLGEN_LOG_CQL): keyspace, attempt (0 first), the statement on one
// line.
type cqlLog struct {
	path string
	mu   sync.Mutex
}

func (l *cqlLog) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\t%d\t%s\n", q.Keyspace, q.Attempt, strings.Join(strings.Fields(q.Statement), " "))
}
