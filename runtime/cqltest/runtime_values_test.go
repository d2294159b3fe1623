package cqltest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// shout encodes itself as its text in capitals, for a text column only:
// a value of the runtime's own kind, which no driver knows.
type shout string

func (s shout) MarshalCQLValue(t *cqldriver.Type) ([]byte, error) {
	if t.Kind != cqldriver.TypeVarchar {
		return nil, fmt.Errorf("shout bound to a %v column", t.Kind)
	}
	return []byte(strings.ToUpper(string(s))), nil
}

// captured keeps what it is asked to decode.
type captured struct {
	kind cqldriver.TypeKind
	b    []byte
	null bool
}

func (c *captured) UnmarshalCQLValue(t *cqldriver.Type, data []byte) error {
	c.kind, c.b, c.null = t.Kind, append([]byte(nil), data...), data == nil
	return nil
}

// The runtime binds values of its own (cqldriver.Unset, cqldriver.Encoded, a
// cqldriver.ValueMarshaler) and scans into a cqldriver.ValueUnmarshaler; the
// session takes them as the gocql v1 adapter passes them to gocql.
func TestRuntimeValuesBindAndScan(t *testing.T) {
	s := newSession(t, kvSchema)
	c7 := binary.BigEndian.AppendUint32(nil, 7)
	mustExec(t, s, "INSERT INTO kv (k, c, a, b) VALUES (?, ?, ?, ?)", "k", cqldriver.Encoded(c7), shout("hello"), int64(2))
	// Unset leaves a, b null clears b.
	mustExec(t, s, "INSERT INTO kv (k, c, a, b) VALUES (?, ?, ?, ?)", "k", 7, cqldriver.Unset, nil)

	it := s.Iter(ctx, q("SELECT c, a, b FROM kv WHERE k = ?", "k"))
	var c int
	var a, b captured
	if !it.Scan(&c, &a, &b) {
		t.Fatal(it.Close())
	}
	if c != 7 {
		t.Errorf("c = %d: the encoded key did not bind as its bytes", c)
	}
	if a.kind != cqldriver.TypeVarchar || string(a.b) != "HELLO" || a.null {
		t.Errorf("a decoded as %+v: want the ValueMarshaler's HELLO, kept by the unset value, as text", a)
	}
	if b.kind != cqldriver.TypeBigInt || !b.null {
		t.Errorf("b decoded as %+v: want a null bigint", b)
	}
	if it.Scan(&c, &a, &b) {
		t.Error("a second row")
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}

	// The value's own error fails the statement, and an unset key is
	// refused as Cassandra refuses it.
	wantErr(t, s.Exec(ctx, q("INSERT INTO kv (k, c, b) VALUES (?, ?, ?)", "k", 8, shout("x"))), "shout bound to a")
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO kv (k, c) VALUES (?, ?)", cqldriver.Unset, 1)), "unset", "k")
	// Encoded bytes are validated as any others: 8 bytes are no int.
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO kv (k, c) VALUES (?, ?)", "k", cqldriver.Encoded(make([]byte, 8)))), "Expected 4 byte int value (8)")
}

// Errors Cassandra would reply with reach the runtime as the gocql v1
// adapter reports them: *cqldriver.DriverError, server kind, with the
// protocol's code, the gocql.RequestError inside.
func TestRequestErrorsAreDriverErrors(t *testing.T) {
	s := newSession(t, kvSchema)
	for _, tc := range []struct {
		err  error
		code int
	}{
		{s.Exec(ctx, q("INSERT INTO nope (k) VALUES (?)", 1)), cqldriver.CodeInvalid},
		{s.Exec(ctx, q("SELEC a FROM kv")), cqldriver.CodeSyntax},
		{s.Iter(ctx, cqldriver.Query{Stmt: q("SELECT a FROM kv WHERE k = ?").Stmt, Values: []any{"k"}, PageState: []byte{0xee}}).Close(), cqldriver.CodeProtocol},
	} {
		var d *cqldriver.DriverError
		if !errors.As(tc.err, &d) || d.Kind != cqldriver.ErrorServer || d.Code != tc.code {
			t.Errorf("%v: %#v, want a server error of code %#x", tc.err, d, tc.code)
			continue
		}
		var re gocql.RequestError
		if !errors.As(tc.err, &re) || re.Code() != tc.code || re.Error() != tc.err.Error() {
			t.Errorf("%v: the gocql.RequestError is not inside", tc.err)
		}
	}
	// A batch keeps the statement's error in its chain.
	err := s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{q("INSERT INTO nope (k) VALUES (?)", 1)})
	if code, ok := cqldriver.ServerCode(err); !ok || code != cqldriver.CodeInvalid {
		t.Errorf("batch: %v: code %#x, %v", err, code, ok)
	}
}

// A hook that fails a call with gocql's errors fails it as the adapter
// would: classified, so that the runtime's retries and outcome decisions
// hold as on a cluster. Other errors are returned untouched.
func TestHookErrorsAreClassified(t *testing.T) {
	var fail error
	s := newSession(t, kvSchema, WithHook(func(context.Context, Call) error { return fail }))
	insert := q("INSERT INTO kv (k, c) VALUES (?, ?)", "k", 1)

	fail = &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	err := s.Exec(ctx, insert)
	var d *cqldriver.DriverError
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(err, &d) || d.Kind != cqldriver.ErrorServer || d.Code != cqldriver.CodeWriteTimeout || d.WriteType != "CAS" {
		t.Errorf("write timeout: %#v", err)
	} else if !errors.As(err, &wt) || wt != fail {
		t.Errorf("write timeout: gocql's error is not inside %v", err)
	}

	fail = gocql.ErrNoConnections
	if err := s.Exec(ctx, insert); !errors.Is(err, cqlgen.ErrNoConnections) || !errors.Is(err, gocql.ErrNoConnections) {
		t.Errorf("no connections: %v", err)
	}

	fail = errors.New("injected")
	if err := s.Exec(ctx, insert); err != fail {
		t.Errorf("a plain error came back as %#v", err)
	}

	// A lost reply: the write applies, the error is classified too.
	fail = LostReply(gocql.ErrTimeoutNoResponse)
	if err := s.Exec(ctx, insert); !errors.Is(err, cqlgen.ErrNoResponse) {
		t.Errorf("lost reply: %v", err)
	}
	fail = nil
	if n := count(t, s, "kv"); n != 1 {
		t.Errorf("%d rows after the lost reply, want the write applied", n)
	}
}
