package cqltest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"
)

var ctx = context.Background()

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *testClock {
	return &testClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newSession(t *testing.T, schema string, opts ...Option) *Session {
	t.Helper()
	s, err := New(schema, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func q(cql string, vals ...any) cqldriver.Query {
	return cqldriver.Query{Stmt: &cqldriver.Statement{CQL: cql, Table: "t", Pattern: "test"}, Values: vals}
}

func mustExec(t *testing.T, s *Session, cql string, vals ...any) {
	t.Helper()
	if err := s.Exec(ctx, q(cql, vals...)); err != nil {
		t.Fatalf("%s: %v", cql, err)
	}
}

// rawScan captures a column's bytes as Cassandra returned them.
type rawScan struct{ b *[]byte }

func (r rawScan) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if data == nil {
		*r.b = nil
	} else {
		*r.b = append([]byte{}, data...)
	}
	return nil
}

// selectAll runs a read to its end, page by page, and returns each row's
// columns as raw bytes.
func selectAll(t *testing.T, s *Session, pageSize, ncols int, cql string, vals ...any) [][][]byte {
	t.Helper()
	var rows [][][]byte
	query := q(cql, vals...)
	query.PageSize = pageSize
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("paging does not end")
		}
		it := s.Iter(ctx, query)
		for {
			row := make([][]byte, ncols)
			dest := make([]any, ncols)
			for i := range row {
				dest[i] = rawScan{&row[i]}
			}
			if !it.Scan(dest...) {
				break
			}
			rows = append(rows, row)
		}
		state := it.PageState()
		if err := it.Close(); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
		if len(state) == 0 {
			return rows
		}
		query.PageState = state
	}
}

// wantErr checks that err mentions every fragment.
func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("error %q does not mention %q", err, f)
		}
	}
}

// wantInvalid checks that err is an InvalidRequest mentioning fragments,
// both as the runtime reads it (a server error of code Invalid) and as
// gocql's RequestError.
func wantInvalid(t *testing.T, err error, fragments ...string) {
	t.Helper()
	wantErr(t, err, fragments...)
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid {
		t.Fatalf("error %q is not an invalid request", err)
	}
	if code, ok := cqldriver.ServerCode(err); !ok || code != cqldriver.CodeInvalid {
		t.Fatalf("error %q is not an invalid request to the runtime: code %#x, %v", err, code, ok)
	}
}
