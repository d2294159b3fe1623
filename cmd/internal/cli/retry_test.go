package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// TestClassify: which statements are sent again after an attempt whose
// outcome is unknown, and which change the schema.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		stmt string
		idem idempotence
		ddl  bool
	}{
		{"SELECT name FROM cqlgen_migrations", mayRepeat, false},
		{"select * from system_schema.tables where keyspace_name = ?", mayRepeat, false},
		{"CREATE TABLE IF NOT EXISTS cqlgen_migrations (\n name text PRIMARY KEY)", mayRepeat, true},
		{"-- the ledger\nCREATE TABLE IF NOT EXISTS x (k int PRIMARY KEY)", mayRepeat, true},
		{"/* a; b */ create keyspace if not exists shop WITH replication = {'class': 'SimpleStrategy'}", mayRepeat, true},
		{"CREATE CUSTOM INDEX IF NOT EXISTS a_by_v ON a (v) USING 'StorageAttachedIndex'", mayRepeat, true},
		{"CREATE OR REPLACE FUNCTION f (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return a; $$", mayRepeat, true},
		{"CREATE TABLE a (k int PRIMARY KEY)", repeatExists, true},
		{"CREATE INDEX owners_by_name ON owners (name)", repeatExists, true},
		{"CREATE TYPE address (street text)", repeatExists, true},
		{"ALTER TABLE events ADD note text", repeatExists, true},
		{`ALTER TABLE "Events" ADD note text`, repeatExists, true},
		{"ALTER TYPE address ADD city text", repeatExists, true},
		{"ALTER TABLE events ADD IF NOT EXISTS note text", mayRepeat, true},
		{"ALTER TABLE IF EXISTS events ADD IF NOT EXISTS note text", mayRepeat, true},
		{"ALTER TABLE listening_history WITH default_time_to_live = 7776000", mayRepeat, true},
		{"ALTER TABLE shop.t WITH comment = 'ADD x'", mayRepeat, true},
		{"ALTER MATERIALIZED VIEW v WITH comment = 'x'", mayRepeat, true},
		{"ALTER TABLE events DROP note", runOnce, true},
		{"ALTER TABLE events RENAME a TO b", runOnce, true},
		{"DROP TABLE events", runOnce, true},
		{"DROP INDEX IF EXISTS owners_by_name", mayRepeat, true},
		{"UPDATE hits SET n = n + 1 WHERE id = '0001'", runOnce, false},
		{"INSERT INTO cqlgen_migrations_lock (name) VALUES (?) IF NOT EXISTS", runOnce, false},
		{"BEGIN BATCH INSERT INTO a (k) VALUES (1); APPLY BATCH", runOnce, false},
		{"TRUNCATE events", runOnce, false},
		{"", runOnce, false},
	} {
		idem, ddl := classify(c.stmt)
		if idem != c.idem || ddl != c.ddl {
			t.Errorf("classify(%q) = %d, %v; want %d, %v", c.stmt, idem, ddl, c.idem, c.ddl)
		}
	}
}

// errAt is a fake attempt: the errors its calls return in turn, then nil.
type errAt struct {
	errs  []error
	calls int
}

func (f *errAt) fn(context.Context) error {
	f.calls++
	if f.calls <= len(f.errs) {
		return f.errs[f.calls-1]
	}
	return nil
}

func testRetrier(timeout time.Duration) (*retrier, *bytes.Buffer, *[]time.Duration) {
	var log bytes.Buffer
	var slept []time.Duration
	return &retrier{timeout: timeout, w: &log, prefix: "cqlgen test", sleep: func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}}, &log, &slept
}

// TestRetrierRetries: work that may run twice is tried again after a
// failure that may pass, with growing, jittered waits, and reported.
func TestRetrierRetries(t *testing.T) {
	r, log, slept := testRetrier(time.Minute)
	f := &errAt{errs: []error{gocql.ErrTimeoutNoResponse, &gocql.RequestErrWriteTimeout{}, gocql.ErrNoConnections, gocql.ErrConnectionClosed}}
	if err := r.do(context.Background(), mayRepeat, "CREATE TABLE IF NOT EXISTS x", f.fn); err != nil {
		t.Fatal(err)
	}
	if f.calls != 5 || len(*slept) != 4 {
		t.Fatalf("%d calls, %d waits", f.calls, len(*slept))
	}
	for i, d := range *slept {
		hi := 100 * time.Millisecond << i
		if d < hi/2 || d > hi {
			t.Errorf("wait %d: %s, want within [%s, %s]", i+1, d, hi/2, hi)
		}
	}
	if !strings.Contains(log.String(), "cqlgen test: CREATE TABLE IF NOT EXISTS x: gocql: no response received from cassandra within timeout period; retrying in") ||
		!strings.Contains(log.String(), "(attempt 5)") {
		t.Errorf("retry notes:\n%s", log)
	}
}

// TestRetrierOnce: a statement that may not run twice gets one attempt
// when its outcome is unknown, and the error says it may have applied;
// one the coordinator refused to run is retried.
func TestRetrierOnce(t *testing.T) {
	r, _, _ := testRetrier(time.Minute)
	f := &errAt{errs: []error{gocql.ErrTimeoutNoResponse}}
	err := r.do(context.Background(), runOnce, "UPDATE hits", f.fn)
	if f.calls != 1 || !errors.Is(err, gocql.ErrTimeoutNoResponse) || !strings.Contains(err.Error(), "it may or may not have applied; it is not retried") {
		t.Errorf("%d calls: %v", f.calls, err)
	}
	f = &errAt{errs: []error{&gocql.RequestErrUnavailable{}, gocql.ErrNoConnections}}
	if err := r.do(context.Background(), runOnce, "UPDATE hits", f.fn); err != nil || f.calls != 3 {
		t.Errorf("not applied: %d calls, %v", f.calls, err)
	}
}

// TestRetrierPermanent: an error another attempt would meet again is
// returned at once, as it is.
func TestRetrierPermanent(t *testing.T) {
	r, log, _ := testRetrier(time.Minute)
	syntax := errors.New("line 1:0 no viable alternative at input 'CREAT'")
	f := &errAt{errs: []error{syntax}}
	if err := r.do(context.Background(), mayRepeat, "CREAT", f.fn); err != syntax || f.calls != 1 || log.Len() != 0 {
		t.Errorf("%d calls: %v\n%s", f.calls, err, log)
	}
	f = &errAt{errs: []error{permanent{gocql.ErrTimeoutNoResponse}}}
	if err := r.do(context.Background(), mayRepeat, "connecting", f.fn); err != gocql.ErrTimeoutNoResponse || f.calls != 1 {
		t.Errorf("permanent: %d calls: %v", f.calls, err)
	}
}

// TestRetrierBudget: retries stop when the budget leaves no room for
// another wait and attempt; the error says how many and the budget.
func TestRetrierBudget(t *testing.T) {
	r, _, _ := testRetrier(time.Minute)
	r.sleep = sleepCtx
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	f := &errAt{errs: []error{gocql.ErrTimeoutNoResponse, gocql.ErrTimeoutNoResponse, gocql.ErrTimeoutNoResponse, gocql.ErrTimeoutNoResponse, gocql.ErrTimeoutNoResponse}}
	err := r.do(ctx, mayRepeat, "SELECT", f.fn)
	if !errors.Is(err, gocql.ErrTimeoutNoResponse) || !strings.Contains(err.Error(), "attempts over") || !strings.Contains(err.Error(), "-timeout 1m0s") {
		t.Errorf("err %v", err)
	}
	if f.calls < 2 || f.calls > 4 || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("%d calls in %s", f.calls, time.Since(start))
	}
}

// TestAttemptTimeout: an attempt waits half the budget, and no less than
// 11 s (past the server's own timeouts) when the budget allows.
func TestAttemptTimeout(t *testing.T) {
	for budget, want := range map[time.Duration]time.Duration{
		time.Minute:      30 * time.Second,
		30 * time.Second: 15 * time.Second,
		20 * time.Second: 11 * time.Second,
		5 * time.Second:  5 * time.Second,
	} {
		if got := attemptTimeout(budget); got != want {
			t.Errorf("attemptTimeout(%s) = %s, want %s", budget, got, want)
		}
	}
	c, err := readClusterEnv(envOf(map[string]string{clusterenv.Hosts: "h"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg := c.cluster(); cfg.Timeout != 30*time.Second || cfg.ConnectTimeout != 30*time.Second || cfg.MaxWaitSchemaAgreement != time.Minute {
		t.Errorf("default: timeout %s, connect %s, agreement %s", cfg.Timeout, cfg.ConnectTimeout, cfg.MaxWaitSchemaAgreement)
	}
	c.Timeout = 2 * time.Minute
	if cfg := c.cluster(); cfg.Timeout != time.Minute || cfg.MaxWaitSchemaAgreement != 2*time.Minute {
		t.Errorf("-timeout 2m: timeout %s, agreement %s", cfg.Timeout, cfg.MaxWaitSchemaAgreement)
	}
}

// TestTimeoutFlag: each command that talks to a cluster takes -timeout,
// refuses one under a second, and says so in its usage.
func TestTimeoutFlag(t *testing.T) {
	for _, args := range [][]string{
		{"apply", "-timeout", "10ms", "./x"},
		{"migrate", "-timeout", "10ms", "-keyspace", "k", "dir"},
		{"diff", "-live", "-timeout", "10ms", "./x"},
		{"import", "-timeout", "10ms", "-keyspace", "k"},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "-timeout 10ms: want at least 1s") {
			t.Errorf("%v = %d\n%s", args, code, stderr)
		}
		code, _, stderr = run(t, args[0], "-h")
		if code != ExitUsage || !strings.Contains(stderr, "-timeout duration") || !strings.Contains(stderr, "(default 1m0s)") {
			t.Errorf("%s -h = %d\n%s", args[0], code, stderr)
		}
	}
}

// TestUsageLines: the usage line names each command's arguments once,
// and diff's flags say where a relative -migrations DIR goes.
func TestUsageLines(t *testing.T) {
	_, _, stderr := run(t, "import", "-h")
	if !strings.Contains(stderr, "usage: cqlgen import [flags] FILE.cql | -keyspace K\n") {
		t.Errorf("import -h:\n%s", stderr)
	}
	_, _, stderr = run(t, "diff", "-h")
	if !strings.Contains(stderr, "taken inside each package's folder (-migrations migrations writes PKG/migrations/)") {
		t.Errorf("diff -h:\n%s", stderr)
	}
	_, stdout, _ := run(t, "help")
	if !strings.Contains(stdout, "(-migrations DIR: a relative DIR is inside each package's folder)") ||
		!strings.Contains(stdout, "take -timeout (default 1m)") {
		t.Errorf("help:\n%s", stdout)
	}
}

// TestSendExists: DDL that creates without IF NOT EXISTS is sent again
// after no reply, and "already exists" then means the first attempt
// applied it; on the first attempt it is the statement's error.
func TestSendExists(t *testing.T) {
	exists := &gocql.RequestErrAlreadyExists{Table: "events"}
	r, log, _ := testRetrier(time.Minute)
	f := &errAt{errs: []error{gocql.ErrTimeoutNoResponse, exists}}
	if err := r.send(context.Background(), repeatExists, "CREATE INDEX owners_by_name ON owners (name)", f.fn); err != nil || f.calls != 2 {
		t.Errorf("retried: %d calls, %v", f.calls, err)
	}
	if !strings.Contains(log.String(), "attempt 2: ") || !strings.Contains(log.String(), "an earlier attempt, which got no reply, had applied it; taken as done") {
		t.Errorf("notes:\n%s", log)
	}
	f = &errAt{errs: []error{exists}}
	if err := r.send(context.Background(), repeatExists, "CREATE INDEX owners_by_name ON owners (name)", f.fn); err != exists || f.calls != 1 {
		t.Errorf("first attempt: %d calls, %v", f.calls, err)
	}
	// A statement that may not run twice is not sent again, and an
	// "already exists" of mayRepeat work is its error.
	f = &errAt{errs: []error{gocql.ErrTimeoutNoResponse, exists}}
	if err := r.send(context.Background(), runOnce, "ALTER TABLE events DROP note", f.fn); err == nil || f.calls != 1 {
		t.Errorf("run once: %d calls, %v", f.calls, err)
	}
	f = &errAt{errs: []error{gocql.ErrTimeoutNoResponse, exists}}
	if err := r.send(context.Background(), mayRepeat, "SELECT", f.fn); err != exists || f.calls != 2 {
		t.Errorf("may repeat: %d calls, %v", f.calls, err)
	}
}
