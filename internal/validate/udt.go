package validate

import (
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// udts checks the package's user-defined types: each name a plain CQL
// identifier that one Go type alone takes, and each field name too.
func (c *checker) udts(p *model.Package) {
	byName := map[string]*model.UDT{}
	for _, u := range p.UDTs {
		c.identifier(u.NamePos, "type", u.Name)
		if first, dup := byName[u.Name]; dup {
			c.diags.Errorf(u.NamePos, diag.DuplicateType, "%s and %s would both be stored as the user-defined type %s (%s is at %s); name one with a //cqlgen:udt line in its doc comment", first.GoName, u.GoName, u.Name, first.GoName, diag.Short(first.Pos))
			continue
		}
		byName[u.Name] = u
		for _, f := range u.Fields {
			if f.Quoted {
				c.diags.Errorf(f.QuotedPos, diag.BadIdentifier, "field %s of type %s: quoted is for the columns of a table; cqlgen does not quote the field names of a user-defined type", f.GoName, u.Name)
				continue
			}
			c.identifier(f.ColPos, "field", f.Column)
		}
	}
}

// udtKey checks a user-defined type in a primary key: Cassandra refuses
// a duration anywhere in a key, and a set or map inside one would be
// compared in the order a client sends its elements, which gocql takes
// from a Go map at random, so one value could become two keys.
func (c *checker) udtKey(r model.Ref, u *model.UDT) {
	var walk func(t *model.Type) string
	walk = func(t *model.Type) string {
		switch {
		case t == nil:
			return ""
		case t.Name == "duration", t.Name == "set", t.Name == "map":
			return t.Name
		case t.UDT != nil:
			for _, f := range t.UDT.Fields {
				if w := walk(f.Type); w != "" {
					return w
				}
			}
		}
		for _, p := range t.Params {
			if w := walk(p); w != "" {
				return w
			}
		}
		return ""
	}
	for _, f := range u.Fields {
		switch walk(f.Type) {
		case "duration":
			c.diags.Errorf(r.Pos, diag.KeyType, "column %s is the user-defined type %s, whose field %s holds a duration, which Cassandra cannot order and refuses in a primary key", r.Name, u.Name, f.Column)
			return
		case "set", "map":
			c.diags.Errorf(r.Pos, diag.KeyType, "column %s is the user-defined type %s, whose field %s holds a set or map; in a key, its elements would be compared in the order gocql sends them, a Go map's random order, so one value could make two keys: use a list, or keep %s out of the key", r.Name, u.Name, f.Column, r.Name)
			return
		}
	}
}
