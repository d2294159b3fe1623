package cqlgentest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// fakeT records what a test would have been told.
type fakeT struct {
	testing.TB
	skipped, failed string
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return "TestFake" }
func (f *fakeT) Skipf(format string, a ...any) {
	f.skipped = fmt.Sprintf(format, a...)
	runtime.Goexit()
}
func (f *fakeT) Fatalf(format string, a ...any) {
	f.failed = fmt.Sprintf(format, a...)
	runtime.Goexit()
}

// run calls fn with f on a goroutine of its own, as a test runs, so that
// Skipf and Fatalf end it.
func (f *fakeT) run(fn func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
}

type fakeStarter struct {
	host    string
	err     error
	started int
}

func (s *fakeStarter) Start(context.Context, string) (string, func() error, error) {
	s.started++
	return s.host, func() error { return nil }, s.err
}

// Without CASSANDRA_HOSTS, a local node or a starter, a test is skipped
// with instructions that name no Makefile; under CI=true it fails.
func TestNoCassandraSkipsOrFailsUnderCI(t *testing.T) {
	t.Setenv(EnvHosts, "")
	defer RegisterStarter(starter)
	RegisterStarter(nil)
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		c := New(Options{Local: "-", Help: "Or run `make db`."})
		f := &fakeT{}
		f.run(func(t testing.TB) { c.Hosts(t) })
		got := f.skipped
		if ci == "true" {
			got = f.failed
		}
		if got == "" || (f.skipped != "") == (f.failed != "") {
			t.Fatalf("CI=%q: skipped %q, failed %q", ci, f.skipped, f.failed)
		}
		for _, want := range []string{EnvHosts + "=host:port", "cqlgentest/container", "docker run", "Or run `make db`."} {
			if !strings.Contains(got, want) {
				t.Errorf("CI=%q: the message does not say %q:\n%s", ci, want, got)
			}
		}
		if strings.Contains(got, "make cassandra") || strings.Contains(got, "integration/") {
			t.Errorf("the message points at cqlgen's own Makefile:\n%s", got)
		}
	}
}

// A registered starter is tried last: unavailable skips, a failure fails,
// a node is used; it is asked once per Cassandra.
func TestStarter(t *testing.T) {
	t.Setenv(EnvHosts, "")
	t.Setenv("CI", "")
	defer RegisterStarter(starter)
	for _, c := range []struct {
		s          *fakeStarter
		skip, fail bool
		hosts      string
	}{
		{s: &fakeStarter{err: fmt.Errorf("no Docker engine: %w", ErrUnavailable)}, skip: true},
		{s: &fakeStarter{err: errors.New("image pull failed")}, fail: true},
		{s: &fakeStarter{host: "127.0.0.1:32768"}, hosts: "127.0.0.1:32768"},
	} {
		RegisterStarter(c.s)
		cas := New(Options{Local: "-"})
		for range 2 {
			f := &fakeT{}
			var hosts []string
			f.run(func(t testing.TB) { hosts = cas.Hosts(t) })
			if (f.skipped != "") != c.skip || (f.failed != "") != c.fail || strings.Join(hosts, ",") != c.hosts {
				t.Errorf("%+v: skipped %q, failed %q, hosts %v", c.s, f.skipped, f.failed, hosts)
			}
		}
		if c.s.started != 1 {
			t.Errorf("%+v: started %d times", c.s, c.s.started)
		}
		if err := cas.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestKeyspaceNames(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)
	for _, prefix := range []string{"", "ci_", "Service_Tests_16"} {
		c := New(Options{KeyspacePrefix: prefix})
		a := c.keyspaceName("TestGenerated/Users_CRUD#01 with a very long subtest name indeed, longer than any keyspace")
		b := c.keyspaceName("TestGenerated/Users_CRUD#01 with a very long subtest name indeed, longer than any keyspace")
		want := strings.ToLower(c.opts.KeyspacePrefix)
		for _, name := range []string{a, b} {
			if !valid.MatchString(name) || !strings.HasPrefix(name, want+"testgenerated_users") {
				t.Errorf("prefix %q: %q is not a valid unquoted keyspace name starting with %q", prefix, name, want)
			}
		}
		if a == b {
			t.Errorf("two calls gave the same name %q", a)
		}
	}
	for _, bad := range []string{"1x", "a-b", "seventeen_chars_x"} {
		f := &fakeT{}
		f.run(func(t testing.TB) { New(Options{KeyspacePrefix: bad}).Keyspace(t) })
		if !strings.Contains(f.failed, "KeyspacePrefix") {
			t.Errorf("prefix %q: failed %q", bad, f.failed)
		}
	}
}

func TestRequalify(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE TABLE shop.users (id int PRIMARY KEY)":                                    "CREATE TABLE t_1.users (id int PRIMARY KEY)",
		"CREATE TABLE SHOP.users (a frozen<shop.address>)":                                "CREATE TABLE t_1.users (a frozen<t_1.address>)",
		`INSERT INTO "shop".users (id) VALUES ('shop.users')`:                             `INSERT INTO t_1.users (id) VALUES ('shop.users')`,
		"SELECT shop FROM shopping.shop WHERE x = 'it''s shop.x' -- shop.y":               "SELECT shop FROM shopping.shop WHERE x = 'it''s shop.x' -- shop.y",
		"CREATE FUNCTION shop.f() RETURNS text LANGUAGE java AS $$ return \"shop.x\"; $$": "CREATE FUNCTION t_1.f() RETURNS text LANGUAGE java AS $$ return \"shop.x\"; $$",
		"CREATE TABLE myshop.users /* shop.users */ (id int)":                             "CREATE TABLE myshop.users /* shop.users */ (id int)",
		"-- shop.a\nSELECT x FROM shop.t // shop.b\n/* shop.c":                            "-- shop.a\nSELECT x FROM t_1.t // shop.b\n/* shop.c",
		`SELECT "unterminated`:       `SELECT "unterminated`,
		`SELECT x FROM "Shop".users`: `SELECT x FROM "Shop".users`,
	} {
		if got := Requalify(in, "shop", "t_1"); got != want {
			t.Errorf("Requalify(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// On a real Cassandra (CASSANDRA_HOSTS, or a node on 127.0.0.1:9042): a
// schema that names its own keyspace lands in the test's, and the
// keyspace is gone after the test.
func TestSchemaOnCassandra(t *testing.T) {
	var ks string
	t.Run("apply", func(t *testing.T) {
		var session *gocql.Session
		session, ks = Schema(t, "testdata/qualified.cql")
		var note string
		if err := session.Query("SELECT note FROM customers WHERE id = 'c1'").Scan(&note); err != nil || note != "lives at shop.address" {
			t.Fatalf("customers in %s: %q, %v", ks, note, err)
		}
		var n int
		if err := session.Query("SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = 'shop'").Scan(&n); err != nil || n != 0 {
			t.Errorf("the script's own keyspace shop exists (%d, %v); it should not have been created", n, err)
		}
		if !strings.HasPrefix(ks, "test_testschemaoncassandra_apply_") {
			t.Errorf("keyspace %q", ks)
		}
		// The package's generated schema applies as it is.
		s2, _ := Schema(t, "../example/music/schema.cql")
		if err := s2.Query("SELECT track_id FROM tracks LIMIT 1").Exec(); err != nil {
			t.Error(err)
		}
	})
	if t.Skipped() || ks == "" {
		return
	}
	var n int
	if err := Session(t).Query("SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).Scan(&n); err != nil || n != 0 {
		t.Errorf("keyspace %s after its test: %d, %v; want it dropped", ks, n, err)
	}
}
