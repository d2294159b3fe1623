package validate

import (
	"fmt"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/suggest"
)

// deprecated checks the expand/contract path of a key change: a table
// marked deprecated beside the table that replaces it. The source of
// truth cannot be deprecated: every other table is checked and rebuilt
// from it, so it cannot be the one that goes.
func (c *checker) deprecated(e *model.Entity, t *model.Table) {
	if t.ReplacedByName != "" && !t.Deprecated {
		c.diags.Errorf(t.ReplacedByPos, diag.BadValue, "replaced_by names the table that takes the place of a deprecated one, and %s is not deprecated: declare table:\"%s,deprecated\"", t.Name, t.Name)
		return
	}
	if !t.Deprecated {
		return
	}
	if t == e.Canonical {
		c.diags.Errorf(t.DeprecatedPos, diag.BadValue, "%s is the source of truth of %s, which every other table is rebuilt from, so it cannot be deprecated; a new key for it is a new entity, filled by a program of yours from this one", t.Name, e.GoName)
		return
	}
	if t.ReplacedByName == "" {
		return
	}
	r := t.ReplacedBy
	switch {
	case t.ReplacedByName == t.Name:
		c.diags.Errorf(t.ReplacedByPos, diag.BadValue, "%s cannot replace itself: name the new table that takes its place", t.Name)
	case r == nil:
		var tables []string
		for _, o := range e.Tables {
			if o != t {
				tables = append(tables, o.Name)
			}
		}
		msg := fmt.Sprintf("replaced_by: %s is no table of %s (its other tables: %s)", t.ReplacedByName, e.GoName, strings.Join(tables, ", "))
		if s := suggest.Closest(t.ReplacedByName, tables); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		} else {
			msg += "; declare the new table as a pattern of its own first"
		}
		c.diags.Errorf(t.ReplacedByPos, diag.BadValue, "%s", msg)
	case r.Deprecated:
		c.diags.Errorf(t.ReplacedByPos, diag.BadValue, "%s is deprecated too, so it cannot take the place of %s: name the table reads move to", r.Name, t.Name)
	}
}
