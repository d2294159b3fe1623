package engine

import (
	"context"
	"errors"
	"maps"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// fakeSession records what strategies send, and stands in for Cassandra's
// lightweight transactions on IdempotencyTable with the semantics the
// runtime relies on: each conditional statement applies atomically, and
// one that does not apply returns the row's current values.
type fakeSession struct {
	mu      sync.Mutex
	execs   []cqldriver.Query
	batches [][]cqldriver.Query
	kinds   []cqldriver.BatchKind
	rows    map[string]map[string]any // IdempotencyTable, by key

	// exec, if set, runs in Exec (outside the lock).
	exec func(ctx context.Context, q cqldriver.Query) error
	// fault, if set, may fail a conditional statement before it applies
	// (before) or after, as a lost reply (after).
	fault func(q cqldriver.Query) (before, after error)
}

func (f *fakeSession) Exec(ctx context.Context, q cqldriver.Query) error {
	f.mu.Lock()
	f.execs = append(f.execs, q)
	f.mu.Unlock()
	if f.exec != nil {
		return f.exec(ctx, q)
	}
	return nil
}

func (f *fakeSession) Iter(context.Context, cqldriver.Query) cqldriver.Iter {
	return errIter{errors.New("fake: no reads")}
}

func (f *fakeSession) ExecCAS(context.Context, cqldriver.Query, ...any) (bool, error) {
	return false, errors.New("fake: use CAS")
}

func (f *fakeSession) Batch(_ context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, qs)
	f.kinds = append(f.kinds, kind)
	return nil
}

func (f *fakeSession) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var after error
	if f.fault != nil {
		var before error
		if before, after = f.fault(q); before != nil {
			return false, before
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows == nil {
		f.rows = make(map[string]map[string]any)
	}
	v := q.Values
	var applied bool
	switch q.Stmt {
	case claimStmt: // key, fingerprint, owner, write_ts, lease_until, ttl
		row, ok := f.rows[v[0].(string)]
		if ok {
			maps.Copy(current, row)
			break
		}
		f.rows[v[0].(string)] = map[string]any{
			"key": v[0], "fingerprint": v[1], "state": statePending, "owner": v[2],
			"write_ts": v[3], "lease_until": v[4],
		}
		applied = true
	case leaseStmt, resumeStmt: // ttl, fingerprint, owner, write_ts, lease_until, outcome, key, old owner
		from := statePending
		if q.Stmt == resumeStmt {
			from = stateUnsettled
		}
		row := f.rows[v[6].(string)]
		if row == nil || row["owner"] != v[7] || row["state"] != from {
			if row != nil {
				current["owner"], current["state"] = row["owner"], row["state"]
			}
			break
		}
		row["fingerprint"], row["state"], row["owner"], row["write_ts"], row["lease_until"], row["outcome"] = v[1], statePending, v[2], v[3], v[4], v[5]
		applied = true
	case doneStmt: // ttl, fingerprint, state, owner, write_ts, lease_until, outcome, key, old owner
		row := f.rows[v[7].(string)]
		if row == nil || row["owner"] != v[8] {
			if row != nil {
				current["owner"] = row["owner"]
			}
			break
		}
		row["fingerprint"], row["state"], row["owner"], row["write_ts"], row["lease_until"], row["outcome"] =
			v[1], v[2], v[3], v[4], v[5], v[6]
		applied = true
	default:
		return false, errors.New("fake: unknown conditional statement " + q.Stmt.CQL)
	}
	if after != nil {
		return false, after
	}
	return applied, nil
}

// pending stores a key as an attempt that crashed would leave it.
func (f *fakeSession) pending(key string, payload []byte, ts int64, leaseUntil time.Time) uuidValue {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows == nil {
		f.rows = make(map[string]map[string]any)
	}
	owner, _ := randomUUID()
	f.rows[key] = map[string]any{
		"key": key, "fingerprint": payload, "state": statePending, "owner": owner,
		"write_ts": ts, "lease_until": leaseUntil,
	}
	return owner
}

func (f *fakeSession) row(key string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.rows[key])
}
