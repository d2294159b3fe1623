package validate

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/suggest"
)

// unknownColumn reports r, a name in a pattern that is no column of e.
// Patterns name columns, not Go fields: when r is a field's Go name
// (UserID for user_id), or near a column or a field's name, it says which
// column was likely meant, and offers it as the replacement.
func (c *checker) unknownColumn(r model.Ref, what string, e *model.Entity) {
	d := diag.Diagnostic{Pos: r.Pos, Severity: diag.Error, Code: diag.UnknownColumn}
	if f := likelyField(r.Name, e); f != nil {
		d.Msg = fmt.Sprintf("%s: unknown column %q; did you mean %s (field %s)?", what, r.Name, f.Column, f.GoName)
		d.Suggestion = f.Column
		if r.Pos.Line > 0 {
			d.End = token.Position{Filename: r.Pos.Filename, Offset: r.Pos.Offset + len(r.Name), Line: r.Pos.Line, Column: r.Pos.Column + len(r.Name)}
		}
	} else {
		var cols []string
		for _, f := range e.Fields {
			cols = append(cols, f.Column)
		}
		d.Msg = fmt.Sprintf("%s: unknown column %q: no field of %s has that column or a name near it (its columns: %s)", what, r.Name, e.GoName, strings.Join(cols, ", "))
	}
	c.diags.Add(d)
}

// likelyField is the field of e that name most likely means: the one whose
// Go name or column it is but for case and underscores, else the one whose
// column, or Go name, it is a typo of.
func likelyField(name string, e *model.Entity) *model.Field {
	fold := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, f := range e.Fields {
		if fold(name) == fold(f.GoName) || fold(name) == fold(f.Column) {
			return f
		}
	}
	var cols, goNames []string
	for _, f := range e.Fields {
		cols = append(cols, f.Column)
		goNames = append(goNames, fold(f.GoName))
	}
	if s := suggest.Closest(name, cols); s != "" {
		for _, f := range e.Fields {
			if f.Column == s {
				return f
			}
		}
	}
	if s := suggest.Closest(fold(name), goNames); s != "" {
		for _, f := range e.Fields {
			if fold(f.GoName) == s {
				return f
			}
		}
	}
	return nil
}
