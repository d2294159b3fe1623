// Package costcheck checks the review page's table of what each write
// costs (cqlspec.Costs) against what the runtime sends: it runs each
// priced write of every entity of a package on cqltest's in-memory
// session and counts the calls. Tests of the examples (gen) and of the
// runtime's fixture (runtime/cqlgenimpl) use it.
//
// It imports gen and runtime/..., so it lives under internal/testutil,
// which only _test.go files import: no production package in internal/
// imports upward.
package costcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1" // cqltest's codec
)

// Repos makes each entity's repository, by "package.Entity": Go finds no
// function by name, so a test lists its package's constructors.
type Repos map[string]func(cqlgen.Session) any

// pageCost is a row of a review page's "What a write costs" tables.
type pageCost struct {
	method, when                                   string
	reads, conditional, statements, requests, rows int
}

var (
	costHeading = regexp.MustCompile(`^\*\*(.+)\*\*$`)
	costRow     = regexp.MustCompile(`^\| (\w+) \| ([^|]+) \| (\d+) \| (\d+) \| (\d+) \((\d+)\) \| (\d+) \|$`)
)

// pageCosts reads the cost tables of a review page, by entity.
func pageCosts(t *testing.T, page string) map[string][]pageCost {
	_, section, ok := strings.Cut(page, "\n## What a write costs\n")
	if !ok {
		t.Fatal("the page has no section \"What a write costs\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	out := map[string][]pageCost{}
	var entities []string
	for line := range strings.SplitSeq(section, "\n") {
		if m := costHeading.FindStringSubmatch(line); m != nil {
			entities = strings.Split(m[1], ", ")
			continue
		}
		m := costRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		c := pageCost{m[1], m[2], n(3), n(4), n(5), n(6), n(7)}
		for _, e := range entities {
			out[e] = append(out[e], c)
		}
	}
	return out
}

// Check runs, for every entity of the packages patterns name (from dir),
// every write its review page prices, and reports each difference
// between the page's figures and what the runtime sent. It returns how
// many priced writes it checked.
func Check(t *testing.T, dir string, patterns []string, repos Repos) int {
	t.Helper()
	pkgs, _, err := pipeline.Models(pipeline.Options{Dir: dir, Patterns: patterns})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, p := range pkgs {
		if len(p.Entities) == 0 {
			continue
		}
		page, err := os.ReadFile(filepath.Join(p.Dir, pipeline.ReviewFile))
		if err != nil {
			t.Fatal(err)
		}
		schema, err := os.ReadFile(filepath.Join(p.Dir, pipeline.SchemaFile))
		if err != nil {
			t.Fatal(err)
		}
		costs := pageCosts(t, string(page))
		for _, e := range p.Entities {
			name := p.Name + "." + e.GoName
			t.Run(name, func(t *testing.T) {
				repo := repos[name]
				if repo == nil {
					t.Fatalf("no repository for %s in the test's Repos", name)
				}
				rows := costs[e.GoName]
				if len(rows) == 0 {
					t.Fatalf("%s: the page prices no write of %s", pipeline.ReviewFile, e.GoName)
				}
				for _, want := range rows {
					got := runCost(t, e, string(schema), repo, want)
					if got != want {
						t.Errorf("%s %s (%s): the runtime sent %+v, the page says %+v", e.GoName, want.method, want.when, got, want)
					}
					seen++
				}
			})
		}
	}
	return seen
}

// runCost runs the case of a page row on a fresh session and counts the
// calls of the priced write alone.
func runCost(t *testing.T, e *model.Entity, schema string, newRepo func(cqlgen.Session) any, want pageCost) pageCost {
	t.Helper()
	s, err := cqltest.New(schema)
	if err != nil {
		t.Fatal(err)
	}
	repo := reflect.ValueOf(newRepo(s))
	a, b := costValues(t, e, repo.Type())
	ctx := reflect.ValueOf(context.Background())
	call := func(method string, args ...reflect.Value) {
		t.Helper()
		m := repo.MethodByName(method)
		if !m.IsValid() {
			t.Fatalf("%s has no method %s", repo.Type(), method)
		}
		out := m.Call(append([]reflect.Value{ctx}, args...))
		if err, _ := out[len(out)-1].Interface().(error); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	var start int
	mark := func() { start = len(s.Calls()) }
	switch {
	case want.method == "Insert", want.method == "Add", want.method == "InsertIfAbsent":
		call(want.method, a)
	case want.method == "Delete":
		if e.Counting() {
			call("Add", a)
		} else {
			call("Insert", a)
		}
		mark()
		call("Delete", a)
	case want.method == "Update" && strings.HasPrefix(want.when, "the same, again"):
		call("Insert", a)
		call("Update", b)
		mark()
		call("Update", a)
	case want.method == "Update":
		call("Insert", a)
		mark()
		call("Update", b)
	case want.method == "Modify":
		call("Insert", a)
		mark()
		var args []reflect.Value
		for _, f := range canonicalKey(e) {
			args = append(args, a.Elem().FieldByName(f.GoName))
		}
		change := reflect.MakeFunc(repo.MethodByName("Modify").Type().In(len(args)+1), func(in []reflect.Value) []reflect.Value {
			in[0].Elem().Set(b.Elem())
			return []reflect.Value{reflect.Zero(reflect.TypeFor[error]())}
		})
		call("Modify", append(args, change)...)
	default:
		t.Fatalf("the test runs no case for %s (%s)", want.method, want.when)
	}
	got := pageCost{method: want.method, when: want.when}
	for _, c := range s.Calls()[start:] {
		got.requests++
		switch c.Op {
		case cqltest.OpIter:
			got.reads++
			got.statements++
		case cqltest.OpCAS:
			got.conditional++
			got.statements++
			got.rows++
		default: // Exec, Batch: each statement writes a row
			got.statements += len(c.Queries)
			got.rows += len(c.Queries)
		}
	}
	return got
}

func canonicalKey(e *model.Entity) []*model.Field {
	var out []*model.Field
	for _, r := range e.Canonical.PK {
		if r.Field != nil {
			out = append(out, r.Field)
		}
	}
	for _, r := range e.Canonical.CK {
		if r.Field != nil {
			out = append(out, r.Field)
		}
	}
	return out
}

// costValues makes two entities of e: a, every field set, and b, with
// the source of truth's key of a and every other field changed; every
// sparse table holds both.
func costValues(t *testing.T, e *model.Entity, repo reflect.Type) (a, b reflect.Value) {
	t.Helper()
	key := map[string]bool{}
	for _, f := range canonicalKey(e) {
		key[f.GoName] = true
	}
	typ := reflect.TypeOf(newOf(t, e, repo)).Elem()
	a, b = reflect.New(typ), reflect.New(typ)
	for _, f := range e.Fields {
		fill(a.Elem().FieldByName(f.GoName), f.Type, 1)
		if key[f.GoName] {
			b.Elem().FieldByName(f.GoName).Set(a.Elem().FieldByName(f.GoName))
		} else {
			fill(b.Elem().FieldByName(f.GoName), f.Type, 2)
		}
	}
	for _, tb := range e.Tables {
		for _, c := range tb.Where {
			if c.Field == nil || len(c.Values) == 0 {
				continue
			}
			set(t, a.Elem().FieldByName(c.Field.GoName), c.Values[0].Text)
			set(t, b.Elem().FieldByName(c.Field.GoName), c.Values[len(c.Values)-1].Text)
		}
	}
	return a, b
}

// newOf finds e's Go type through its repository's Insert or Add.
func newOf(t *testing.T, e *model.Entity, repo reflect.Type) any {
	for _, m := range []string{"Insert", "Add"} {
		if mt, ok := repo.MethodByName(m); ok {
			return reflect.New(mt.Type.In(2).Elem()).Interface()
		}
	}
	t.Fatalf("no Go type for %s", e.GoName)
	return nil
}

var costEpoch = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// fill sets v to a value of its type that differs with seed: a non-empty
// string, a collection of one element, a time and a time uuid of seed
// hours after an epoch.
func fill(v reflect.Value, cql *model.Type, seed int) {
	switch v.Interface().(type) {
	case time.Time:
		v.Set(reflect.ValueOf(costEpoch.Add(time.Duration(seed) * time.Hour)))
		return
	case gocql.UUID:
		v.Set(reflect.ValueOf(gocql.UUIDFromTime(costEpoch.Add(time.Duration(seed) * time.Hour))))
		return
	case time.Duration:
		v.SetInt(int64(seed) * int64(time.Minute))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("v%d", seed))
	case reflect.Bool:
		v.SetBool(seed%2 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed) + 0.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), cql, seed)
		v.Set(p)
	case reflect.Slice:
		n := 1
		if cql != nil && cql.IsVector() {
			n = cql.Dim
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(s.Index(i), param(cql, 0), seed+i)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), param(cql, 0), seed+i)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, x := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, param(cql, 0), seed)
		fill(x, param(cql, 1), seed)
		m.SetMapIndex(k, x)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), nil, seed)
			}
		}
	}
}

func param(t *model.Type, i int) *model.Type {
	if t == nil || i >= len(t.Params) {
		return nil
	}
	return t.Params[i]
}

// set sets v to a sparse table's condition value.
func set(t *testing.T, v reflect.Value, text string) {
	t.Helper()
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		set(t, p.Elem(), text)
		v.Set(p)
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		v.SetBool(text == "true")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		v.SetInt(n)
	default:
		t.Fatalf("a condition on a %s", v.Type())
	}
}
