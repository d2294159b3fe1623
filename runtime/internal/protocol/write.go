package protocol

import (
	"context"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// Begin starts a write method: it refuses a nil entity and, with check,
// empty key values, and returns the repository's options with the call's
// applied.
func Begin[P any](e P, check func(P) error, o cqlgen.Options, opts []cqlgen.Option) (cqlgen.Options, error) {
	return begin(e, check, o, opts, 0)
}

// Allow lists the options a write method honours beyond the common ones;
// begin refuses the others with an *cqlgen.InputError (ErrInvalidOption) rather than ignore
// them.
type Allow uint8

const (
	// AllowVersions: cqlgen.IfVersion and cqlgen.IfAbsent, on the
	// writes of the protocol.
	AllowVersions Allow = 1 << iota
	// AllowAbsent: cqlgen.IfAbsent alone, on the Insert of an entity
	// stored in one table (IF NOT EXISTS).
	AllowAbsent
	// AllowTTL: cqlgen.WithTTL, on the Insert and Update of an entity
	// stored in one table.
	AllowTTL
)

func begin[P any](e P, check func(P) error, o cqlgen.Options, opts []cqlgen.Option, allow Allow) (cqlgen.Options, error) {
	if value.IsNil(e) {
		return o, cqlgen.ErrNilEntity
	}
	if err := check(e); err != nil {
		return o, err
	}
	repoTTL := o.TTL
	o = desc.CallOptions(o, opts)
	switch {
	case o.Strategy == nil:
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Strategy", Reason: "nil; leave it out for the default, a logged batch"}
	case o.Clock == nil:
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Clock", Reason: "nil; leave it out for the default, time.Now"}
	case o.Expect == cqlgen.Absent && allow&(AllowVersions|AllowAbsent) == 0:
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "IfAbsent", Reason: "only an Insert can be conditional on no entity being there"}
	case o.Expect != 0 && o.Expect != cqlgen.Absent && allow&AllowVersions == 0:
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "IfVersion", Reason: "only an entity stored in several tables through the write protocol has versions; this one has none"}
	case repoTTL != 0:
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "TTL", Reason: "given to the repository; pass cqlgen.WithTTL per call, and declare a default for every write with the table's ttl:\"...\""}
	case o.TTL != 0 && allow&AllowTTL == 0:
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "TTL", Reason: "only the Insert and Update of an entity stored in one table take a TTL per call: the rows of an entity in several tables, a Delete's tombstones and counters could not honour it; declare the tables' ttl:\"...\" instead"}
	case o.TTL != 0 && (o.TTL < time.Second || o.TTL > cqlgen.MaxTTL || o.TTL%time.Second != 0):
		return o, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "TTL", Reason: o.TTL.String() + ": a TTL is a whole number of seconds, from 1s to 20 years"}
	}
	return o, nil
}

// BeginVersioned is Begin for the writes of the protocol, which alone
// honour cqlgen.IfVersion; Begin refuses it.
func BeginVersioned[P any](e P, check func(P) error, o cqlgen.Options, opts []cqlgen.Option) (cqlgen.Options, error) {
	return begin(e, check, o, opts, AllowVersions)
}

// BeginWrite is Begin for a write that honours the options allow names
// as well.
func BeginWrite[P any](e P, check func(P) error, o cqlgen.Options, opts []cqlgen.Option, allow Allow) (cqlgen.Options, error) {
	return begin(e, check, o, opts, allow)
}

// GetRow reads at most one row; cqlgen.ErrNotFound when there is none.
func GetRow[T any](ctx context.Context, s cqlgen.Session, q cqldriver.Query, scan func(cqldriver.Iter, *T) bool) (T, error) {
	it := s.Iter(ctx, q)
	var row T
	if err := oneRow(it, scan(it, &row)); err != nil {
		var zero T
		return zero, err
	}
	return row, nil
}

// FetchRow is GetRow into row.
func FetchRow[P any](ctx context.Context, s cqlgen.Session, q cqldriver.Query, scan func(cqldriver.Iter, P) bool, row P) error {
	it := s.Iter(ctx, q)
	return oneRow(it, scan(it, row))
}

// GetValue is GetRow for a scan that returns the row it reads.
func GetValue[T any](ctx context.Context, s cqlgen.Session, q cqldriver.Query, scan func(cqldriver.Iter) (T, bool)) (T, error) {
	it := s.Iter(ctx, q)
	row, ok := scan(it)
	if err := oneRow(it, ok); err != nil {
		var zero T
		return zero, err
	}
	return row, nil
}

// oneRow closes the iterator of a read of one row, found or not: its
// error, else cqlgen.ErrNotFound when there was no row.
func oneRow(it cqldriver.Iter, found bool) error {
	if err := it.Close(); err != nil {
		return err
	}
	if !found {
		return cqlgen.ErrNotFound
	}
	return nil
}

// nextVersion is the write timestamp of a change of an entity whose last
// write had timestamp old: now, but always at least old+2, so that the
// change (whose inserts go at +1, see DeleteThenInsert) wins over every
// statement of the last write even when clocks disagree.
func nextVersion(old, now int64) int64 { return max(now, old+2) }
