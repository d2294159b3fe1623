package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// scriptedDriver answers each request with the next error of its script
// (nil once it runs out: applied), as a driver whose query plan had no
// host with a connection answers without consulting the retry policy.
// It counts the requests that reached it.
type scriptedDriver struct {
	errs []error
	sent int
}

func (d *scriptedDriver) next() error {
	d.sent++
	if len(d.errs) == 0 {
		return nil
	}
	err := d.errs[0]
	d.errs = d.errs[1:]
	return err
}

func (d *scriptedDriver) Exec(context.Context, *cqldriver.Request) error { return d.next() }
func (d *scriptedDriver) Iter(context.Context, *cqldriver.Request) cqldriver.DriverIter {
	panic("scriptedDriver: no reads")
}
func (d *scriptedDriver) ScanCAS(context.Context, *cqldriver.Request, ...any) (bool, error) {
	err := d.next()
	return err == nil, err
}
func (d *scriptedDriver) MapScanCAS(_ context.Context, _ *cqldriver.Request, current map[string]any) error {
	err := d.next()
	if err == nil {
		current[casApplied] = true
	}
	return err
}
func (d *scriptedDriver) Batch(context.Context, *cqldriver.BatchRequest) error { return d.next() }
func (d *scriptedDriver) RoutingKey(context.Context, string, []any) (string, []byte, error) {
	return "", nil, nil
}

var casStmt = &cqldriver.Statement{CQL: "UPDATE t SET v = ? WHERE k = ? IF v = ?", Table: "t", Pattern: "Set", Kind: cqldriver.Conditional}

// Issue 35, goal 2: "no hosts available in the pool" says that nothing
// was sent, so a conditional write (not idempotent: a second attempt
// after one that was sent could find its own write) waits and goes again,
// within the attempt budget, like any statement. An Insert's first
// statement is its conditional write; before, it failed at once when a
// cut left no connection, where an Update's read waited for one.
// Checks invariant I13: "nothing was sent" is true.
func TestConditionalWriteWithNoConnectionIsSentAgain(t *testing.T) {
	withJitter(t, noJitter)
	ctx := context.Background()
	opts := &cqlgen.SessionOptions{MaxAttempts: 4, BaseDelay: time.Millisecond}
	d := &scriptedDriver{errs: []error{errNoConnections, errNoConnections}}
	applied, err := NewSession(d, opts).ExecCAS(ctx, cqldriver.Query{Stmt: casStmt})
	if err != nil || !applied || d.sent != 3 {
		t.Errorf("ExecCAS after two passes without a connection: applied %v, %v, %d sent; want applied on the third", applied, err, d.sent)
	}
	d = &scriptedDriver{errs: []error{errNoConnections}}
	if _, err := NewSession(d, opts).(*session).ExecCASMap(ctx, cqldriver.Query{Stmt: casStmt}, map[string]any{}); err != nil || d.sent != 2 {
		t.Errorf("ExecCASMap: %v after %d sends; want applied on the second", err, d.sent)
	}

	// Within the budget: then the error says how many passes were made,
	// and that none was sent.
	d = &scriptedDriver{errs: []error{errNoConnections, errNoConnections, errNoConnections, errNoConnections, errNoConnections}}
	_, err = NewSession(d, opts).ExecCAS(ctx, cqldriver.Query{Stmt: casStmt})
	if !errors.Is(err, cqlgen.ErrRetriesExhausted) || !errors.Is(err, cqlgen.ErrNoConnections) || d.sent != 4 {
		t.Errorf("ExecCAS never connected: %v after %d passes; want exhausted retries after 4", err, d.sent)
	}

	// A conditional write that was sent, and whose connection broke, is
	// not sent again: the protocol settles it.
	for _, sent := range []error{errNoResponse, clientErr(cqldriver.ErrorConnection), writeTimeout("CAS")} {
		d = &scriptedDriver{errs: []error{sent}}
		if _, err := NewSession(d, opts).ExecCAS(ctx, cqldriver.Query{Stmt: casStmt}); !errors.Is(err, sent) || d.sent != 1 {
			t.Errorf("ExecCAS failing with %v: %v after %d sends; want the error after one", sent, err, d.sent)
		}
	}
}

// A counter update that found no connection is sent again too; when no
// pass ever found one, it is not applied, not unknown.
func TestCounterUpdateWithNoConnection(t *testing.T) {
	withJitter(t, noJitter)
	ctx := context.Background()
	opts := &cqlgen.SessionOptions{MaxAttempts: 3, BaseDelay: time.Millisecond}
	d := &scriptedDriver{errs: []error{errNoConnections}}
	if err := ExecCounter(ctx, NewSession(d, opts), cqldriver.Query{Stmt: counterUpdate}); err != nil || d.sent != 2 {
		t.Errorf("counter update: %v after %d sends; want applied on the second", err, d.sent)
	}
	d = &scriptedDriver{errs: []error{errNoConnections, errNoConnections, errNoConnections}}
	err := ExecCounter(ctx, NewSession(d, opts), cqldriver.Query{Stmt: counterUpdate})
	if !errors.Is(err, cqlgen.ErrCounterNotApplied) || errors.Is(err, cqlgen.ErrOutcomeUnknown) || d.sent != 3 {
		t.Errorf("counter update never connected: %v after %d passes; want not applied after 3", err, d.sent)
	}
	// Sent, then no connection: the first pass may have applied it.
	d = &scriptedDriver{errs: []error{errNoResponse, errNoConnections}}
	err = ExecCounter(ctx, NewSession(d, opts), cqldriver.Query{Stmt: counterUpdate})
	if !errors.Is(err, cqlgen.ErrOutcomeUnknown) || d.sent != 1 {
		t.Errorf("counter update whose reply was lost: %v after %d sends; want unknown after one", err, d.sent)
	}
}
