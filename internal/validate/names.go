package validate

import (
	"go/token"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// goNames checks the Go identifiers the generated file would declare:
// two of them, or one of them and a name the package declares itself,
// must not be the same, or the generated file would not compile. Each
// collision is reported once, at the declaration that causes the later
// identifier.
func (c *checker) goNames(p *model.Package) {
	type key struct{ recv, name string }
	ids := p.Idents()
	// The first of each name, by its index in ids: a map of thousands of
	// names at 200 patterns, sized once (grown, and holding whole Idents,
	// it took most of the validate stage's time).
	seen := make(map[key]int, len(ids))
	reported := map[token.Position]bool{}
	report := func(pos token.Position, format string, args ...any) {
		if !reported[pos] {
			reported[pos] = true
			c.diags.Errorf(pos, diag.DuplicateName, format, args...)
		}
	}
	for i, id := range ids {
		if id.Recv == "" {
			if at, ok := p.Declared[id.Name]; ok {
				fix := "rename the entity or the declaration"
				if id.Table != nil {
					fix = "rename the pattern with name:\"...\", or the declaration"
				}
				report(id.Pos, "cqlgen would declare %s (%s), but the package already declares %s at %s; %s",
					id.Name, id.What, id.Name, diag.Short(at), fix)
				continue
			}
		}
		k := key{id.Recv, id.Name}
		j, dup := seen[k]
		if !dup {
			seen[k] = i
			continue
		}
		first := ids[j]
		if first.Pos == id.Pos {
			continue // one declaration, reported by its own check
		}
		if a, b := first.Table, id.Table; a != nil && b != nil && a.Method == b.Method {
			report(id.Pos, "patterns %s and %s would both get the Go name %s (%s, ...); rename one with name:\"...\"",
				a.Name, b.Name, b.Method, id.Name)
			continue
		}
		report(id.Pos, "cqlgen would declare %s twice: as %s, and as %s (from %s); rename one with name:\"...\"",
			id.Name, id.What, first.What, diag.Short(first.Pos))
	}
}
