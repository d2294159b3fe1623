package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// kindChange is what a change of kind does to one entity: Head says it
// in a line, Detail (indented lines) lists the methods that go and come
// and what each write costs now.
type kindChange struct {
	Entity *model.Entity
	Head   string
	Detail string
}

func (k kindChange) String() string { return "  api: " + k.Head + "\n" + k.Detail }

// diag is the change as a warning on the entity's declaration: its
// repository lost methods, or its writes now cost more or less.
func (k kindChange) diag() diag.Diagnostic {
	var help []string
	for _, line := range strings.Split(strings.TrimRight(k.Detail, "\n"), "\n") {
		help = append(help, strings.TrimPrefix(line, "    "))
	}
	return diag.Diagnostic{Pos: k.Entity.Pos, Severity: diag.Warning, Code: diag.KindChange, Msg: k.Head, Help: strings.Join(help, "\n")}
}

// kindChanges finds the entities of p kept in one table before and in
// several now, or the reverse, and says what the change does to each:
// how its writes go now, the methods of its repository that disappear
// and appear, and what each write costs now (schema.md, "What a write
// costs"). The methods come from the generated repository types, before
// (oldGo, the generated file compared with; nil when diff has none) and
// now; without the file of before, from the model, which names what the
// emitter writes.
func kindChanges(p *pipeline.Package, prev *schemadiff.Schema, oldGo []byte) []kindChange {
	byComment := false
	for _, t := range prev.Tables {
		byComment = byComment || t.Entity != ""
	}
	var out []kindChange
	for _, ent := range p.Model.Entities {
		if ent.Counting() {
			continue // a counter entity's writes are the same in any number of tables
		}
		var before []string
		for _, t := range prev.Tables {
			// A live keyspace, or a schema file not written by cqlgen,
			// does not say whose its tables are: those the entity
			// declares are its.
			if byComment && t.Entity == ent.GoName || !byComment && slices.ContainsFunc(ent.Tables, func(mt *model.Table) bool { return mt.Name == t.Name }) {
				before = append(before, t.Name)
			}
		}
		now := tableNames(ent.Tables)
		if len(before) == 0 || (len(before) == 1) == (len(now) == 1) {
			continue
		}
		k := kindChange{Entity: ent}
		if len(now) == 1 {
			k.Head = fmt.Sprintf("%s: now kept in one table (%s), not %d: each write is one statement on it, with no write protocol and no fan-out", ent.GoName, now[0], len(before))
		} else {
			k.Head = fmt.Sprintf("%s: now kept in %d tables (%s): %s", ent.GoName, len(now), strings.Join(now, ", "), howWritten(ent))
		}
		var w strings.Builder
		gone, added, ok := methodChange(p, ent, before, oldGo)
		if ok {
			if len(gone) > 0 {
				fmt.Fprintf(&w, "    methods gone: %s\n", strings.Join(gone, ", "))
			}
			if len(added) > 0 {
				fmt.Fprintf(&w, "    methods new:  %s\n", strings.Join(added, ", "))
			}
		} else {
			fmt.Fprintf(&w, "    methods: diff has no generated %s of before to compare with; -base-rev REV lists the methods gone and new\n", pipeline.GoFile)
		}
		if costs := cqlspec.Costs(ent.CostShape()); len(costs) > 0 {
			fmt.Fprintf(&w, "    what a write costs now (%s, \"What a write costs\"):\n", pipeline.ReviewFile)
			tw := tabwriter.NewWriter(&w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "      Write\tCase\tReads\tConditional\tStatements (requests)\tRows\n")
			for _, c := range costs {
				when := c.Case
				if when == "" {
					when = "—"
				}
				fmt.Fprintf(tw, "      %s\t%s\t%d\t%d\t%d (%d)\t%d\n", c.Method, when, c.Reads, c.Conditional, c.Statements, c.Requests, c.Rows)
			}
			tw.Flush()
		}
		k.Detail = w.String()
		out = append(out, k)
	}
	return out
}

// howWritten says how the writes of an entity kept in several tables go.
func howWritten(ent *model.Entity) string {
	switch {
	case ent.Versioned() && ent.Canonical.Transactional:
		return "every write is one transaction over its tables (docs/cassandra6.md)"
	case ent.Versioned():
		return "every write goes through the write protocol, conditional on the source of truth's version (docs/protocol.md)"
	case ent.Immutable:
		return "written once: Insert writes a row to each table, Delete reads the source of truth first"
	}
	return "each write writes a row to each table"
}

func tableNames(ts []*model.Table) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// methodChange lists the exported methods of ent's repository type that
// disappear and appear, each in the order its file declares them: from
// the generated files when diff has the one of before, else from the
// model, which can tell the repository of before only when ent still
// declares every table it had (before names them). ok is false when
// neither can tell.
func methodChange(p *pipeline.Package, ent *model.Entity, before []string, oldGo []byte) (gone, added []string, ok bool) {
	repo := ent.Names.Repo
	if oldGo != nil {
		if old, found := goMethods(oldGo, repo); found {
			now, _ := goMethods(p.Files[pipeline.GoFile], repo)
			return minus(old, now), minus(now, old), true
		}
	}
	then := *ent
	then.Tables = nil
	for _, t := range ent.Tables {
		if slices.Contains(before, t.Name) {
			then.Tables = append(then.Tables, t)
		}
	}
	if len(then.Tables) != len(before) {
		return nil, nil, false // a table of before is declared no more
	}
	old, now := modelMethods(&then), modelMethods(ent)
	return minus(old, now), minus(now, old), true
}

// goMethods lists the exported methods of the type named recv that the
// Go file src declares; found is false when it declares no such type.
func goMethods(src []byte, recv string) (methods []string, found bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == recv {
					found = true
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) != 1 || !d.Name.IsExported() {
				continue
			}
			t := d.Recv.List[0].Type
			if star, ok := t.(*ast.StarExpr); ok {
				t = star.X
			}
			if id, ok := t.(*ast.Ident); ok && id.Name == recv {
				methods = append(methods, d.Name.Name)
			}
		}
	}
	return methods, found
}

// modelMethods lists the methods the model gives ent's repository type.
func modelMethods(ent *model.Entity) []string {
	var out []string
	for _, id := range (&model.Package{Entities: []*model.Entity{ent}}).Idents() {
		if id.Recv == ent.Names.Repo {
			out = append(out, id.Name)
		}
	}
	return out
}

// minus is a without the elements of b, in a's order.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// previousGo reads the generated Go file of p as it was where the schema
// compared with comes from: the committed file, or the file at -base-rev.
// It is nil with -base and -live, and when there is no such file.
func (src *source) previousGo(p *pipeline.Package) []byte {
	switch {
	case src.live || src.base != "":
		return nil
	case src.rev != "":
		b, found, err := gitShow(p.Dir, src.rev, pipeline.GoFile)
		if err != nil || !found {
			return nil
		}
		return b
	}
	b, err := os.ReadFile(filepath.Join(p.Dir, pipeline.GoFile))
	if err != nil {
		return nil
	}
	return b
}
