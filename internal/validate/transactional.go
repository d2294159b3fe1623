package validate

import (
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// transactional checks the transactional mode (table:"...,canonical,
// transactional"): each write of the entity is one Accord transaction on
// Cassandra 6, so the entity must be one the write protocol writes, and
// nothing of it may need what a transaction refuses (docs/cassandra6.md).
func (c *checker) transactional(e *model.Entity) {
	for _, t := range e.Tables {
		if t.Transactional && t != e.Canonical {
			c.diags.Errorf(t.TransactionalPos, diag.BadValue, "transactional describes an entity and goes on its source of truth, not on %s; mark the canonical pattern instead", t.Name)
		}
	}
	if !e.Transactional {
		return
	}
	canon, at := e.Canonical, e.TransactionalPos
	switch {
	case e.Immutable:
		c.diags.Errorf(at, diag.BadValue, "%s is immutable, written once with plain writes; a transaction checks and moves versions, which it has none of: drop transactional or immutable", e.GoName)
		return
	case counters(e):
		c.diags.Errorf(at, diag.BadValue, "%s has counters, which Cassandra cannot update inside a transaction: drop transactional, or move the counters to an entity of their own", e.GoName)
		return
	case len(e.Tables) < 2:
		c.diags.Errorf(at, diag.BadValue, "%s is stored in one table, whose every write is already atomic: transactional applies to an entity stored in several tables", e.GoName)
		return
	}
	for _, t := range e.Tables {
		if t.TTL > 0 {
			// Inside a transaction Cassandra refuses USING TTL, and
			// 6.0-alpha2 loses the rows a transaction writes into a table
			// with a default_time_to_live.
			c.diags.Errorf(t.TTLPos, diag.BadValue, "%s is transactional, and a transaction can give its rows no time to live (Cassandra 6.0-alpha2 loses the rows a transaction writes into a table with a default TTL): drop the ttl of %s, or transactional", e.GoName, t.Name)
		}
	}
	if canon.HasStatics() {
		c.diags.Errorf(at, diag.BadValue, "%s has static columns in its source of truth %s, which the transactional mode does not support yet: drop transactional, or the statics", e.GoName, canon.Name)
	}
	if canon.Bucket != nil {
		c.diags.Errorf(at, diag.BadValue, "the source of truth %s has a bucket in its key, which the transactional mode does not support: drop transactional, or the bucket of %s", canon.Name, canon.Name)
	}
}

// counters reports whether a field of e is a counter.
func counters(e *model.Entity) bool {
	for _, f := range e.Fields {
		if f.Type != nil && f.Type.Name == "counter" {
			return true
		}
	}
	return false
}
