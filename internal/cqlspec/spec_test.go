package cqlspec

import (
	"reflect"
	"strings"
	"testing"
)

// Generated code writes each column as Column.String and the runtime reads
// it back with Cols: types with spaces and brackets, and both flags, come
// back as they were.
func TestColsReadsWhatStringWrites(t *testing.T) {
	cols := []Column{
		{Name: "id", Type: "text"},
		{Name: "at", Type: "timestamp", Desc: true},
		{Name: "tags", Type: "frozen<map<text, frozen<list<int>>>>", Desc: true},
		{Name: "addr", Type: "udt<address, street text, zip int>", Static: true},
		{Name: "desc", Type: "set<text>", Desc: true, Static: true},
	}
	var ss []string
	for _, c := range cols {
		ss = append(ss, c.String())
	}
	if got := Cols(ss...); !reflect.DeepEqual(got, cols) {
		t.Errorf("Cols(%q) = %+v, want %+v", ss, got, cols)
	}
}

// Quote leaves a name CQL reads unquoted as it is, and quotes the others:
// a reserved word (in any case), a name with a capital or a character
// outside [a-z0-9_], a quote doubled.
func TestQuote(t *testing.T) {
	for name, want := range map[string]string{
		"user_id": "user_id", "v2": "v2", "from": `"from"`, "to": `"to"`, "order": `"order"`,
		"createdAt": `"createdAt"`, "From": `"From"`, "2fa": `"2fa"`, `a"b`: `"a""b"`,
	} {
		if got := Quote(name); got != want {
			t.Errorf("Quote(%q) = %s, want %s", name, got, want)
		}
	}
}

// ScanRows is rendered for a table that asks for it, and only then: with
// the columns its reads select (a grave's mark on a versioned source of
// truth, never the bucket) over a token range of the whole partition key
// (the bucket included), bound low then high, and with no LIMIT.
func TestScanRows(t *testing.T) {
	scanRows := func(tb *Table) *Statement {
		for _, s := range Render(tb) {
			if s.Slot == SlotScanRows {
				return &s
			}
		}
		return nil
	}
	base := Table{Name: "t", Pattern: "T", PartitionKey: Cols("a text", "shard int"), Clustering: Cols("c int desc"), Columns: Cols("v text"), Bucket: BucketHash}
	if s := scanRows(&base); s != nil {
		t.Errorf("a table without Scanned renders ScanRows:\n%s", s.CQL())
	}
	scanned := base
	scanned.Scanned = true
	s := scanRows(&scanned)
	if s == nil {
		t.Fatal("no ScanRows on a Scanned table")
	}
	want := "SELECT a, c, v\n\tFROM t\n\tWHERE token(a, shard) > ? AND token(a, shard) <= ?"
	if s.CQL() != want || !reflect.DeepEqual(s.Binds, []Bind{{Kind: BindTokenLo}, {Kind: BindTokenHi}}) {
		t.Errorf("ScanRows:\n%s\n%+v\nwant\n%s", s.CQL(), s.Binds, want)
	}
	canon := Table{Name: "e", Pattern: "E", PartitionKey: Cols("id uuid"), Columns: Cols("v text"), Canonical: true, Versioned: true, Scanned: true}
	if s := scanRows(&canon); s == nil || s.CQL() != "SELECT id, v, cqlgen_deleted\n\tFROM e\n\tWHERE token(id) > ? AND token(id) <= ?" {
		t.Errorf("ScanRows of a versioned source of truth: %+v", s)
	}
	unique := Table{Name: "u", Pattern: "U", PartitionKey: Cols("email text"), Columns: Cols("id uuid"), Unique: true, Scanned: true}
	if s := scanRows(&unique); s != nil {
		t.Errorf("a unique table renders ScanRows:\n%s", s.CQL())
	}
}

// Runs starts a run at each change of direction among the clustering
// columns after the prefix a read fixes, counted from it: the renderer
// writes a continuation a run, and the runtime's pages pick among them.
func TestRuns(t *testing.T) {
	tb := Table{Name: "t", PartitionKey: Cols("p text"), Clustering: Cols("a int desc", "b int", "c int", "d int desc")}
	for depth, want := range [][]int{{0, 1, 3}, {0, 2}, {0, 1}, {0}, nil} {
		if got := tb.Runs(depth); !reflect.DeepEqual(got, want) {
			t.Errorf("Runs(%d) = %v, want %v", depth, got, want)
		}
	}
	// The renderer writes as many continuations as there are runs.
	var after int
	for _, s := range Render(&tb) {
		if s.Slot == SlotAfter && s.Depth == 0 && !s.Scatter {
			after++
		}
	}
	if after != len(tb.Runs(0)) {
		t.Errorf("%d continuation statements at depth 0, want one a run (%d)", after, len(tb.Runs(0)))
	}
}

// Every generated schema.cql ends with the runtime's tables, made from
// the names the runtime reads and writes them by.
func TestRuntimeTablesCQL(t *testing.T) {
	for _, name := range []string{IdempotencyTable, ProgressTable} {
		if !strings.Contains(RuntimeTablesCQL, "CREATE TABLE IF NOT EXISTS "+name+" (") {
			t.Errorf("RuntimeTablesCQL does not create %s", name)
		}
		if !Owned(name) {
			t.Errorf("%s is not a name of cqlgen's own", name)
		}
	}
	if Owned("orders") || !Owned("CQLGEN_x") {
		t.Error("Owned does not go by the prefix cqlgen_, in either case")
	}
}
