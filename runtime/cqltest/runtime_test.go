package cqltest_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// The runtime's read engine and versioned writes are tested through
// generated repositories on this engine in runtime/cqlgenimpl; here, the
// runtime's user API that needs no generated code.

func musicSession(t *testing.T, opts ...cqltest.Option) *cqltest.Session {
	t.Helper()
	schema, err := os.ReadFile("../../example/music/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := cqltest.New(string(schema), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var topTracksInsert = &cqldriver.Statement{
	CQL:        "INSERT INTO top_tracks_by_artist (artist_id, play_count, track_id, track_name, album, duration_s) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?",
	Table:      "top_tracks_by_artist",
	Kind:       cqlgen.Write,
	Idempotent: true,
}

// The runtime's idempotency protocol, on the real statements: a command
// runs once per key, even when the reply of the conditional write that
// acquires the key's lease is lost (pattern "idempotency.claim").
func TestIdempotencyKeys(t *testing.T) {
	lose := map[string]bool{"idempotency.claim": true}
	s := musicSession(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		if p := c.Queries[0].Stmt.Pattern; lose[p] {
			delete(lose, p) // once
			return cqltest.LostReply(errors.New("timeout"))
		}
		return nil
	}))
	ctx := context.Background()
	runs := 0
	fn := func(ctx context.Context, ts int64) error {
		runs++
		return s.Exec(ctx, cqldriver.Query{Stmt: topTracksInsert, Values: []any{"a", int64(1), "t", "n", "al", int32(3), ts}})
	}
	id := cqlgenimpl.Idempotency{Key: "request-1"}
	for _, ts := range []int64{100, 200, 300} {
		if err := cqlgenimpl.Idempotent(ctx, s, id, ts, []byte("payload"), fn); err != nil {
			t.Fatalf("ts %d: %v", ts, err)
		}
	}
	if runs != 1 {
		t.Errorf("the command ran %d times, want once", runs)
	}
	err := cqlgenimpl.Idempotent(ctx, s, id, 400, []byte("other"), fn)
	if !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("another payload: %v", err)
	}
	rows, _ := s.Rows(cqlgenimpl.IdempotencyTable)
	if len(rows) != 1 || rows[0]["state"] != "done" || rows[0]["write_ts"] != int64(100) {
		t.Errorf("record %v", rows)
	}
}
