package validate

import (
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// unique checks a unique table: a table of claims derived from the source
// of truth of an entity written through the write protocol, whose key is
// an alternate key, not the entity's identity, and which holds nothing
// but claims.
func (c *checker) unique(e *model.Entity, t *model.Table) {
	if !t.Unique {
		return
	}
	canon := e.Canonical
	switch {
	case t == canon || t.Canonical:
		c.diags.Errorf(t.UniquePos, diag.BadValue, "unique goes on a table of an alternate key beside the source of truth, not on %s, which holds each %s once by its own key: declare e.g. table:\"%s_by_email,unique\" pk:\"email\"", t.Name, e.GoName, t.Name)
		return
	case canon == nil:
		return
	case e.Immutable:
		c.diags.Errorf(t.UniquePos, diag.BadValue, "%s is immutable, written without versions, and a unique key is claimed through them: drop immutable from %s, or unique from %s", e.GoName, canon.Name, t.Name)
		return
	}
	for _, bad := range []struct {
		given bool
		what  string
	}{
		{t.Cols != nil, "cols"}, {len(t.Static) > 0, "static"}, {t.Bucket != nil, "a bucket"}, {t.TTL > 0, "a ttl"},
	} {
		if bad.given {
			c.diags.Errorf(t.UniquePos, diag.BadValue, "unique table %s holds claims (its key, which %s holds it, and since when), so %s does not apply; read the rest through %s", t.Name, e.GoName, bad.what, canon.Name)
		}
	}
	if canon.Bucket != nil {
		c.diags.Errorf(t.UniquePos, diag.BadValue, "the source of truth %s has a bucket in its key, which a claim cannot name its owner by; unique tables need a source of truth keyed by its columns alone", canon.Name)
	}
	inKey := map[*model.Field]bool{}
	for _, col := range append(t.PartitionKey(), t.Clustering()...) {
		inKey[col.Field] = true
	}
	for _, f := range e.Identity() {
		if !inKey[f] {
			return
		}
	}
	c.diags.Errorf(t.UniquePos, diag.BadValue, "the key of %s holds the identity of %s, so no two entities can share it anyway: drop unique", t.Name, e.GoName)
}
