package validate

import (
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// times checks the fields tagged cqlgen:"ttl, writetime": their columns
// are ones Cassandra 5.0 returns one TTL() and one WRITETIME() for, in a
// source of truth GetTimes can read.
func (c *checker) times(e *model.Entity) {
	t := e.Canonical
	if t == nil {
		return
	}
	for _, f := range e.Fields {
		if !f.TTL && !f.Writetime {
			continue
		}
		pos, fn := f.TTLPos, "TTL()"
		if !f.TTL {
			pos, fn = f.WritetimePos, "WRITETIME()"
		}
		col := t.ColumnOf(f)
		switch {
		case col == nil || f.Type == nil:
			continue
		case col.Kind == model.PartitionKey || col.Kind == model.Clustering:
			c.diags.Errorf(pos, diag.BadValue, "field %s: column %s is in the primary key of %s, and Cassandra refuses %s on a primary key column (\"Cannot use selection function %s on PRIMARY KEY part %s\"): its cells are the row's; tag a regular column", f.GoName, col.Name, t.Name, fn, strings.ToLower(strings.TrimSuffix(fn, "()")), col.Name)
		case f.Type.Name == "counter":
			c.diags.Errorf(pos, diag.UnsupportedType, "field %s: column %s is a counter, which cannot expire (Cassandra 5.0 answers TTL() with null) and whose WRITETIME() is its last increment's on the replica read; cqlgen reads neither", f.GoName, col.Name)
		case (f.Type.Name == "list" || f.Type.Name == "set" || f.Type.Name == "map") && !f.Type.Frozen:
			c.diags.Errorf(pos, diag.UnsupportedType, "field %s: column %s is a non-frozen %s, whose elements are cells of their own: Cassandra 5.0 answers %s with a list, one value an element, not one for the column; freeze it (cql:\"frozen<...>\") to read one", f.GoName, col.Name, f.Type.Name, fn)
		case t.Bucket != nil || e.Versioned() && t.HasStatics():
			c.diags.Errorf(pos, diag.UnsupportedType, "field %s: GetTimes reads a source of truth without a bucket, and without statics when written by the protocol; %s has one", f.GoName, t.Name)
		}
	}
}
