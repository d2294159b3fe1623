// Package counting is a driver adapter written outside cqlgen's module,
// the worked example of docs/runtime.md ("Writing an adapter"): a
// cqldriver.Driver that counts the requests and statements generated
// repositories send, and hands each one to another Driver, here gocql's
// (runtime/gocqlv1).
//
// It uses only what any module can import: the driver interface
// (runtime/cqldriver), the user API (runtime/cqlgen), runtime/cqladapter,
// which makes the session of a Driver, and the gocql adapter it wraps. Its
// module path is outside github.com/cqlgen/cqlgen, so the go command
// refuses it any package under runtime/internal.
package counting

import (
	"context"
	"sync"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqladapter"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Counts is what a Driver has been asked to send.
type Counts struct {
	// Requests are round trips: every call of Exec, Iter, ScanCAS,
	// MapScanCAS and Batch (a batch is one request).
	Requests int
	// Statements are the statements of those requests: one each, and a
	// batch's statements each.
	Statements int
	// Reads are the requests that read rows (Iter).
	Reads int
	// Conditional are the conditional writes (ScanCAS, MapScanCAS, and a
	// batch's statements of kind cqldriver.Conditional).
	Conditional int
}

// Driver counts the requests it hands to the Driver it wraps, and keeps
// their CQL. It is safe for concurrent use, as a Driver must be: a
// repository reads hash buckets and many keys concurrently.
type Driver struct {
	next cqldriver.Driver

	mu     sync.Mutex
	counts Counts
	cql    []string
}

var _ cqldriver.Driver = (*Driver)(nil)

// Wrap returns a Driver that counts what it hands to next.
func Wrap(next cqldriver.Driver) *Driver { return &Driver{next: next} }

// NewSession is the session generated repositories run on, over gs, with
// every request counted by the Driver it returns beside it. The session is
// the runtime's (cqladapter.NewSession): consistency per statement kind,
// retries, batch limits and observers are the same as gocqlv1.NewSession's.
func NewSession(gs *gocql.Session, opts *cqlgen.SessionOptions) (cqlgen.Session, *Driver) {
	d := Wrap(gocqlv1.New(gs))
	return cqladapter.NewSession(d, opts), d
}

// Take returns the counts and the CQL of every statement sent since the
// last Take (a batch's statements in order), and starts counting afresh.
func (d *Driver) Take() (Counts, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, cql := d.counts, d.cql
	d.counts, d.cql = Counts{}, nil
	return c, cql
}

// count records one request: its statements' CQL, how many of them are
// conditional, and whether it is a read.
func (d *Driver) count(cql []string, conditional int, read bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.counts.Requests++
	d.counts.Statements += len(cql)
	d.counts.Conditional += conditional
	if read {
		d.counts.Reads++
	}
	d.cql = append(d.cql, cql...)
}

// Exec runs a statement that returns no rows.
func (d *Driver) Exec(ctx context.Context, r *cqldriver.Request) error {
	d.count([]string{r.CQL}, 0, false)
	return d.next.Exec(ctx, r)
}

// Iter runs a read: one page of rows.
func (d *Driver) Iter(ctx context.Context, r *cqldriver.Request) cqldriver.DriverIter {
	d.count([]string{r.CQL}, 0, true)
	return d.next.Iter(ctx, r)
}

// ScanCAS runs a conditional write, scanning the current row into dest.
func (d *Driver) ScanCAS(ctx context.Context, r *cqldriver.Request, dest ...any) (bool, error) {
	d.count([]string{r.CQL}, 1, false)
	return d.next.ScanCAS(ctx, r, dest...)
}

// MapScanCAS runs a conditional write, the current row by column name.
func (d *Driver) MapScanCAS(ctx context.Context, r *cqldriver.Request, current map[string]any) error {
	d.count([]string{r.CQL}, 1, false)
	return d.next.MapScanCAS(ctx, r, current)
}

// Batch runs statements as one batch: one request.
func (d *Driver) Batch(ctx context.Context, b *cqldriver.BatchRequest) error {
	cql := make([]string, len(b.Queries))
	conditional := 0
	for i, q := range b.Queries {
		cql[i] = q.Stmt.CQL
		if q.Stmt.Kind == cqldriver.Conditional {
			conditional++
		}
	}
	d.count(cql, conditional, false)
	return d.next.Batch(ctx, b)
}

// RoutingKey is the wrapped driver's: it is no request of a repository
// (gocql computes it from the prepared statement), and is not counted.
func (d *Driver) RoutingKey(ctx context.Context, cql string, values []any) (string, []byte, error) {
	return d.next.RoutingKey(ctx, cql, values)
}
