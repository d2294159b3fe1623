package gocqlv2

import (
	"context"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqladapter"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// noHostDriver answers its first conditional writes as the v2 driver does when its
// query plan held no host with a connection, without consulting the retry
// policy: gocql.ErrNoConnections, as this adapter returns it.
type noHostDriver struct {
	cqldriver.Driver
	fails, sent int
}

func (d *noHostDriver) ScanCAS(context.Context, *cqldriver.Request, ...any) (bool, error) {
	d.sent++
	if d.sent <= d.fails {
		return false, classify(gocql.ErrNoConnections)
	}
	return true, nil
}

// Issue 35, goal 2: "no hosts available in the pool", as the v2 driver returns
// it, makes the session send a conditional write again (nothing was sent),
// within its attempts.
func TestNoHostConditionalWriteIsSentAgain(t *testing.T) {
	d := &noHostDriver{fails: 2}
	s := cqladapter.NewSession(d, &cqlgen.SessionOptions{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	st := &cqldriver.Statement{CQL: "UPDATE t SET v = ? WHERE k = ? IF v = ?", Table: "t", Kind: cqldriver.Conditional}
	if applied, err := s.ExecCAS(context.Background(), cqldriver.Query{Stmt: st}); err != nil || !applied || d.sent != 3 {
		t.Errorf("ExecCAS: applied %v, %v after %d sends; want applied on the third", applied, err, d.sent)
	}
}
