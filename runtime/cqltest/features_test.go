package cqltest

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

const counterSchema = `CREATE TABLE hits (page text, day int, views counter, likes counter, PRIMARY KEY (page, day));
CREATE TABLE kv (k text PRIMARY KEY, v int);`

// readCounters reads views and likes of one row; ok is false when there is
// no row.
func readCounters(t *testing.T, s *Session, page string, day int) (views, likes int64, ok bool) {
	t.Helper()
	it := s.Iter(ctx, q("SELECT views, likes FROM hits WHERE page = ? AND day = ?", page, day))
	var v, l *int64
	ok = it.Scan(&v, &l)
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if v != nil {
		views = *v
	}
	if l != nil {
		likes = *l
	}
	return views, likes, ok
}

func TestCounters(t *testing.T) {
	clock := newClock()
	s := newSession(t, counterSchema, WithClock(clock.Now))
	const add = "UPDATE hits SET views = views + ?, likes = likes - ? WHERE page = ? AND day = ?"
	if _, _, ok := readCounters(t, s, "a", 1); ok {
		t.Fatal("a row before any update")
	}
	mustExec(t, s, add, int64(3), int64(1), "a", 1)
	clock.Add(time.Second)
	mustExec(t, s, add, int64(4), int64(-5), "a", 1)
	if v, l, ok := readCounters(t, s, "a", 1); !ok || v != 7 || l != 4 {
		t.Fatalf("after +3/-1 and +4/-(-5): views %d likes %d (row %v), want 7 and 4", v, l, ok)
	}
	// An unset amount leaves its counter alone; the other still counts.
	mustExec(t, s, add, cqldriver.Unset, int64(1), "a", 1)
	if v, l, _ := readCounters(t, s, "a", 1); v != 7 || l != 3 {
		t.Fatalf("after an unset view: views %d likes %d", v, l)
	}
	// Only one counter written: the other reads as null.
	mustExec(t, s, "UPDATE hits SET views = views + ? WHERE page = ? AND day = ?", int64(2), "b", 1)
	if v, l, ok := readCounters(t, s, "b", 1); !ok || v != 2 || l != 0 {
		t.Fatalf("b: views %d likes %d (row %v)", v, l, ok)
	}
	// A row deletion hides it; a later increment adds to the total from
	// before the deletion, as the node does (with its counter cache).
	clock.Add(time.Second)
	mustExec(t, s, "DELETE FROM hits WHERE page = ? AND day = ?", "a", 1)
	if _, _, ok := readCounters(t, s, "a", 1); ok {
		t.Fatal("a/1 after its deletion")
	}
	clock.Add(time.Second)
	mustExec(t, s, add, int64(1), int64(0), "a", 1)
	if v, l, _ := readCounters(t, s, "a", 1); v != 8 || l != 3 {
		t.Fatalf("after deletion and +1/-0: views %d likes %d, want 8 and 3", v, l)
	}
	// A counter column's own deletion is final: its tombstone wins over
	// later increments.
	mustExec(t, s, "UPDATE hits SET views = views + ? WHERE page = ? AND day = ?", int64(5), "d", 1)
	clock.Add(time.Second)
	mustExec(t, s, "DELETE views FROM hits WHERE page = ? AND day = ?", "d", 1)
	clock.Add(time.Second)
	mustExec(t, s, "UPDATE hits SET views = views + ? WHERE page = ? AND day = ?", int64(2), "d", 1)
	if _, _, ok := readCounters(t, s, "d", 1); ok {
		t.Fatal("d/1: a deleted counter column counts again")
	}
	if rows, err := s.Rows("hits"); err != nil || len(rows) != 2 || rows[0]["views"] != int64(8) {
		t.Fatalf("Rows: %v, %v", rows, err)
	}

	// What Cassandra refuses.
	for _, tc := range []struct {
		cql  string
		vals []any
		msg  string
	}{
		{"INSERT INTO hits (page, day, views) VALUES (?, ?, ?)", []any{"a", 1, int64(1)}, "INSERT statements are not allowed on counter tables, use UPDATE instead"},
		{"UPDATE hits SET views = ? WHERE page = ? AND day = ?", []any{int64(1), "a", 1}, "Cannot set the value of counter column views"},
		{"UPDATE kv SET v = v + ? WHERE k = ?", []any{1, "a"}, "for non counter column v"},
		{"UPDATE hits USING TTL ? SET views = views + ? WHERE page = ? AND day = ?", []any{10, int64(1), "a", 1}, "Cannot provide custom TTL for counter updates"},
		{"UPDATE hits USING TIMESTAMP ? SET views = views + ? WHERE page = ? AND day = ?", []any{int64(10), int64(1), "a", 1}, "Cannot provide custom timestamp for counter updates"},
		{"UPDATE hits SET views = views + ? WHERE page = ? AND day = ? IF EXISTS", []any{int64(1), "a", 1}, "Conditional updates are not supported on counter tables"},
		{"UPDATE hits SET views = views + ? WHERE page = ? AND day = ?", []any{nil, "a", 1}, "Invalid null value for counter increment"},
	} {
		wantInvalid(t, s.Exec(ctx, q(tc.cql, tc.vals...)), tc.msg)
	}
	inc := q("UPDATE hits SET views = views + ? WHERE page = ? AND day = ?", int64(1), "c", 1)
	wantInvalid(t, s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{inc}), "Cannot include a counter statement in a logged batch")
	wantInvalid(t, s.Batch(ctx, cqldriver.Unlogged, []cqldriver.Query{inc, q("INSERT INTO kv (k, v) VALUES (?, ?)", "a", 1)}), "Counter and non-counter mutations cannot exist in the same batch")
	if err := s.Batch(ctx, cqldriver.Unlogged, []cqldriver.Query{inc, inc}); err != nil {
		t.Fatalf("a counter batch: %v", err)
	}
	if v, _, _ := readCounters(t, s, "c", 1); v != 2 {
		t.Fatalf("after a batch of two +1: %d", v)
	}
}

// address is a user-defined type's value as gocql v1 marshals it: a struct
// whose fields are matched by their cql tags.
type address struct {
	Street string   `cql:"street"`
	Zip    *string  `cql:"zip"`
	Tags   []string `cql:"tags"`
	Geo    *geo     `cql:"geo"`
}

type geo struct {
	Lat float64 `cql:"lat"`
	Lon float64 `cql:"lon"`
}

const udtSchema = `
CREATE TYPE IF NOT EXISTS geo (lat double, lon double);
CREATE TYPE address (street text, zip text, tags set<text>, geo frozen<geo>);
CREATE TYPE office (street text, zip text);
CREATE TABLE people (
	id int,
	at frozen<geo>,
	home frozen<address>,
	work office,
	others list<frozen<address>>,
	spots map<text, frozen<geo>>,
	PRIMARY KEY (id, at)
) WITH CLUSTERING ORDER BY (at DESC);`

func TestUserDefinedTypes(t *testing.T) {
	s := newSession(t, udtSchema)
	zip := "75001"
	home := address{Street: "1 rue", Zip: &zip, Tags: []string{"b", "a", "b"}, Geo: &geo{48.8, 2.3}}
	work := address{Street: "2 av"}
	ins := "INSERT INTO people (id, at, home, work, others, spots) VALUES (?, ?, ?, ?, ?, ?)"
	mustExec(t, s, ins, 1, geo{1, 2}, home, work, []address{work, home}, map[string]geo{"x": {3, 4}})
	mustExec(t, s, ins, 1, geo{1, 3}, (*address)(nil), (*address)(nil), []address(nil), map[string]geo(nil))
	mustExec(t, s, ins, 1, geo{0, 9}, (*address)(nil), (*address)(nil), []address(nil), map[string]geo(nil))

	// Clustering by a frozen UDT: field by field, descending here.
	it := s.Iter(ctx, q("SELECT at, home, work, others, spots FROM people WHERE id = ?", 1))
	var ats []geo
	var at geo
	var gotHome, gotWork address
	var others []address
	var spots map[string]geo
	for it.Scan(&at, &gotHome, &gotWork, &others, &spots) {
		ats = append(ats, at)
		if at == (geo{1, 2}) {
			// The set inside the UDT comes back sorted, its repeated
			// element dropped: cqldriver.Marshal binds every value in
			// its canonical encoding (a node would keep the set inside
			// a UDT as it was sent).
			want := address{Street: "1 rue", Zip: &zip, Tags: []string{"a", "b"}, Geo: &geo{48.8, 2.3}}
			if !reflect.DeepEqual(gotHome, want) {
				t.Errorf("home %+v, want %+v", gotHome, want)
			}
			if gotWork.Street != "2 av" || gotWork.Zip != nil || gotWork.Geo != nil {
				t.Errorf("work %+v", gotWork)
			}
			if len(others) != 2 || others[0].Street != "2 av" || others[1].Street != "1 rue" {
				t.Errorf("others %+v", others)
			}
			if spots["x"] != (geo{3, 4}) {
				t.Errorf("spots %+v", spots)
			}
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if want := []geo{{1, 3}, {1, 2}, {0, 9}}; !reflect.DeepEqual(ats, want) {
		t.Fatalf("clustering order %v, want %v", ats, want)
	}
	// A UDT in a condition and in the key of a write.
	applied, err := s.ExecCASMap(ctx, q("UPDATE people SET home = ? WHERE id = ? AND at = ? IF home = ?", work, 1, geo{1, 2}, home), map[string]any{})
	if err != nil || !applied {
		t.Fatalf("IF home = the stored one: %v, %v", applied, err)
	}
	cur := map[string]any{}
	applied, err = s.ExecCASMap(ctx, q("UPDATE people SET home = ? WHERE id = ? AND at = ? IF home = ?", work, 1, geo{1, 2}, home), cur)
	if err != nil || applied {
		t.Fatalf("IF home = the old one: %v, %v", applied, err)
	}
	if h, _ := cur["home"].(map[string]any); h["street"] != "2 av" || h["zip"] != nil {
		t.Fatalf("current home %#v", cur["home"])
	}
	// Bytes that are no address are refused, as Cassandra validates them.
	wantInvalid(t, s.Exec(ctx, q("UPDATE people SET home = ? WHERE id = ? AND at = ?", raw{0, 0, 0, 9, 'x'}, 1, geo{1, 2})), "Invalid value")
	// Setting a field alone is not modeled.
	wantErr(t, s.Exec(ctx, q("UPDATE people SET work.street = ? WHERE id = ? AND at = ?", "x", 1, geo{1, 2})), "cqltest:", "not supported")
}

func TestVectors(t *testing.T) {
	s := newSession(t, `CREATE TABLE docs (id int PRIMARY KEY, e vector<float, 3>);`)
	mustExec(t, s, "INSERT INTO docs (id, e) VALUES (?, ?)", 1, cqldriver.Vector{1, -2.5, 3})
	it := s.Iter(ctx, q("SELECT e FROM docs WHERE id = ?", 1))
	var got cqldriver.Vector
	if !it.Scan(&got) || !reflect.DeepEqual(got, cqldriver.Vector{1, -2.5, 3}) {
		t.Fatalf("read %v (%v)", got, it.Close())
	}
	if rows, _ := s.Rows("docs"); !reflect.DeepEqual(rows[0]["e"], []float32{1, -2.5, 3}) {
		t.Fatalf("Rows: %v", rows)
	}
	// Raw bytes of the wrong length are refused, as Cassandra validates them.
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO docs (id, e) VALUES (?, ?)", 2, raw{0, 0, 0, 0})), "Invalid value")
	wantInvalid(t, s.Exec(ctx, q("SELECT id FROM docs ORDER BY e ANN OF ? LIMIT 1", cqldriver.Vector{1, 2, 3})), "requires the column to be indexed")
}

// TestANN: ORDER BY ANN OF returns the rows nearest the vector by the
// index's similarity function, up to LIMIT, and similarity_f(column, ?)
// each row's score, as Cassandra 5.0 computes them (the figures below were
// read from a 5.0.8 node: cosine (1+cos)/2, dot product (1+a·b)/2,
// euclidean 1/(1+d²)).
func TestANN(t *testing.T) {
	s := newSession(t, `CREATE TABLE t (k int, c int, v vector<float, 3>, cat text, PRIMARY KEY (k, c));
CREATE CUSTOM INDEX t_v ON t (v) USING 'StorageAttachedIndex' WITH OPTIONS = {'similarity_function': 'COSINE'};
CREATE CUSTOM INDEX t_cat ON t (cat) USING 'StorageAttachedIndex';`)
	mustExec(t, s, "INSERT INTO t (k, c, v, cat) VALUES (?, ?, ?, ?)", 1, 1, cqldriver.Vector{1, 2, 3}, "a")
	mustExec(t, s, "INSERT INTO t (k, c, v, cat) VALUES (?, ?, ?, ?)", 1, 2, cqldriver.Vector{3, -1, 0.5}, "b")
	mustExec(t, s, "INSERT INTO t (k, c, cat) VALUES (?, ?, ?)", 1, 3, "a") // no vector: never returned
	q3 := cqldriver.Vector{0.5, 1, -2}
	type hit struct {
		c   int
		sim float32
	}
	read := func(cql string, vals ...any) []hit {
		t.Helper()
		it := s.Iter(ctx, q(cql, vals...))
		var out []hit
		var h hit
		for it.Scan(&h.c, &h.sim) {
			out = append(out, h)
		}
		if err := it.Close(); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
		return out
	}
	for _, c := range []struct {
		fn   string
		want []hit
	}{
		{"cosine", []hit{{2, 0.4659201}, {1, 0.29587585}}},
		{"dot_product", []hit{{2, 0.25}, {1, -1.25}}},
		{"euclidean", []hit{{2, 0.057142857}, {1, 0.036697246}}},
	} {
		got := read("SELECT c, similarity_"+c.fn+"(v, ?) FROM t WHERE k = ? ORDER BY v ANN OF ? LIMIT ?", q3, 1, q3, 5)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.fn, got, c.want)
		}
	}
	if got := read("SELECT c, similarity_cosine(v, ?) FROM t WHERE cat = ? ORDER BY v ANN OF ? LIMIT 5", q3, "a", q3); !reflect.DeepEqual(got, []hit{{1, 0.29587585}}) {
		t.Errorf("filtered by cat, over every partition: %v", got)
	}
	if got := read("SELECT c, similarity_cosine(v, ?) FROM t ORDER BY v ANN OF ? LIMIT 1", q3, q3); !reflect.DeepEqual(got, []hit{{2, 0.4659201}}) {
		t.Errorf("LIMIT 1: %v", got)
	}
	wantInvalid(t, s.Exec(ctx, q("SELECT c FROM t ORDER BY v ANN OF ?", q3)), "requires a LIMIT")
	wantInvalid(t, s.Exec(ctx, q("SELECT c FROM t ORDER BY v ANN OF ? LIMIT 1", cqldriver.Vector{0, 0, 0})), "all-zero")
	wantErr(t, s.Exec(ctx, q("SELECT similarity_cosine(v, ?) FROM t WHERE k = 1", q3)), "cqltest:", "outside an ANN query")
	wantInvalid(t, s.Exec(ctx, q("SELECT similarity_cosine(cat, ?) FROM t ORDER BY v ANN OF ? LIMIT 1", q3, q3)), "float vector")
}

// TestNewWithoutAnAdapter: in a program that links no driver adapter,
// New says which to import, rather than failing at the first value.
func TestNewWithoutAnAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	out, err := exec.Command("go", "run", "./testdata/nocodec").CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	if s := string(out); !strings.HasPrefix(s, "true ") || !strings.Contains(s, `import _ "github.com/cqlgen/cqlgen/runtime/gocqlv1"`) {
		t.Fatalf("New without an adapter: %s", s)
	}
}
