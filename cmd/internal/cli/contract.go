package cli

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gocql/gocql"
	"golang.org/x/tools/go/packages"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// deprecations reports where each deprecated table of p stands on the
// way to its drop (docs/runbook.md, "Changing a table's key"):
//
//   - expand: the replacing table exists in the schema compared with (it
//     was applied before this change);
//   - reads: nothing in p's module calls the deprecated table's read
//     method any more, outside the generated file;
//   - backfill: with a live session, the replacing table has rows. That
//     is necessary, not proof: only verify -table, which reads every row,
//     proves the backfill complete, and diff does not run it.
//
// The drop is proposed only when the checks it can make pass. What diff
// cannot know, it says: whether the code that still reads the table is
// deployed, and whether other programs read it.
func deprecations(e *env, p *pipeline.Package, prev *schemadiff.Schema, from string, live *gocql.Session, rt *retrier, keyspace string) error {
	var tables []*model.Table
	for _, ent := range p.Model.Entities {
		for _, t := range ent.Tables {
			if t.Deprecated {
				tables = append(tables, t)
			}
		}
	}
	if len(tables) == 0 {
		return nil
	}
	calls, err := callers(p, tables)
	if err != nil {
		return err
	}
	for _, t := range tables {
		r := t.ReplacedBy
		head := fmt.Sprintf("  deprecated: table %s (read by %s.%s)", t.Name, t.Entity.GoName, t.Method)
		if r != nil {
			head += ", replaced by " + r.Name
		}
		fmt.Fprintln(e.stdout, head+":")
		ready := true
		if r != nil {
			if prev.Table(r.Name) != nil {
				fmt.Fprintf(e.stdout, "    [x] expand: %s exists in %s\n", r.Name, e.rel(from))
			} else {
				ready = false
				fmt.Fprintf(e.stdout, "    [ ] expand: %s is new against %s: apply the migration and deploy, so that every write fills both tables\n", r.Name, e.rel(from))
			}
		}
		if at := calls[t]; len(at) > 0 {
			ready = false
			more := ""
			if len(at) > 3 {
				more = fmt.Sprintf(" and %d more", len(at)-3)
				at = at[:3]
			}
			fmt.Fprintf(e.stdout, "    [ ] reads: %s is still called at %s%s\n", t.Method, strings.Join(relAll(e, at), ", "), more)
		} else {
			fmt.Fprintf(e.stdout, "    [x] reads: nothing in the module calls %s (diff cannot see what is deployed, nor other programs that read %s)\n", t.Method, t.Name)
		}
		if r != nil {
			backfill := fmt.Sprintf("%s, then %s",
				maintainCmd(e, p, keyspace, fmt.Sprintf("backfill -entity %s -table %s -job add-%s", t.Entity.GoName, r.Name, r.Name)),
				maintainCmd(e, p, keyspace, "verify -table "+r.Name))
			switch has, err := hasRows(live, rt, keyspace, r.Name); {
			case live == nil:
				fmt.Fprintf(e.stdout, "    [?] backfill: diff reads no data without -live; run %s (exit 0)\n", backfill)
			case err != nil:
				ready = false
				fmt.Fprintf(e.stdout, "    [ ] backfill: reading %s: %v\n", r.Name, err)
			case !has:
				ready = false
				fmt.Fprintf(e.stdout, "    [ ] backfill: %s holds no rows yet: run %s\n", r.Name, backfill)
			default:
				fmt.Fprintf(e.stdout, "    [x] backfill: %s holds rows (which proves it started, not that it is complete: verify -table %s, exit 0, proves that)\n", r.Name, r.Name)
			}
		}
		if !ready {
			fmt.Fprintf(e.stdout, "    the drop of %s waits for the steps above\n", t.Name)
			continue
		}
		when := "ready to contract"
		if r != nil && live == nil {
			when = "ready to contract once verify -table " + r.Name + " exits 0"
		}
		fmt.Fprintf(e.stdout, "    %s: remove the pattern of %s from %s, generate and deploy; then cqlgen diff -base-rev proposes DROP TABLE IF EXISTS %s; to run by hand\n", when, t.Name, t.Entity.GoName, t.Name)
	}
	return nil
}

// hasRows reports whether table holds a row; with no session, nothing is
// read.
func hasRows(s *gocql.Session, r *retrier, keyspace, table string) (bool, error) {
	if s == nil {
		return false, nil
	}
	n := 0
	err := r.do(context.Background(), mayRepeat, "reading "+table, func(ctx context.Context) error {
		// One row of one page: never a count, which would read the table.
		it := s.Query(fmt.Sprintf("SELECT * FROM %s.%s LIMIT 1", keyspace, table)).PageSize(1).WithContext(ctx).Iter()
		n = it.NumRows()
		return it.Close()
	})
	return n > 0, err
}

// callers finds, in every package of p's module (tests included), the
// calls of the read methods of tables outside the generated file.
func callers(p *pipeline.Package, tables []*model.Table) (map[*model.Table][]token.Position, error) {
	root, err := moduleRoot(p.Dir)
	if err != nil {
		return nil, err
	}
	byMethod := map[string]*model.Table{}
	for _, t := range tables {
		byMethod[t.Entity.Names.Repo+"."+t.Method] = t
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   root,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("looking for reads of deprecated tables: %w", err)
	}
	generated := filepath.Join(p.Dir, pipeline.GoFile)
	seen := map[token.Position]bool{}
	out := map[*model.Table][]token.Position{}
	for _, lp := range pkgs {
		if lp.TypesInfo == nil {
			continue
		}
		for id, obj := range lp.TypesInfo.Uses {
			fn, ok := obj.(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg().Path() != p.Path {
				continue
			}
			recv := fn.Signature().Recv()
			if recv == nil {
				continue
			}
			rt := recv.Type()
			if ptr, ok := rt.(*types.Pointer); ok {
				rt = ptr.Elem()
			}
			named, ok := rt.(*types.Named)
			if !ok {
				continue
			}
			t := byMethod[named.Obj().Name()+"."+fn.Name()]
			if t == nil {
				continue
			}
			pos := lp.Fset.Position(id.Pos())
			if pos.Filename == generated || seen[pos] {
				continue
			}
			seen[pos] = true
			out[t] = append(out[t], pos)
		}
	}
	for _, at := range out {
		sort.Slice(at, func(i, j int) bool {
			if at[i].Filename != at[j].Filename {
				return at[i].Filename < at[j].Filename
			}
			return at[i].Offset < at[j].Offset
		})
	}
	return out, nil
}

// moduleRoot is the folder of the go.mod that dir belongs to.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod in or above " + dir)
		}
	}
}

func relAll(e *env, at []token.Position) []string {
	out := make([]string, len(at))
	for i, p := range at {
		out[i] = fmt.Sprintf("%s:%d:%d", e.rel(p.Filename), p.Line, p.Column)
	}
	return out
}
