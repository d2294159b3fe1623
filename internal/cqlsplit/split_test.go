package cqlsplit

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestSplitCases runs the constructs that a line-based splitter gets
// wrong, one at a time.
func TestSplitCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		want   []Statement
	}{
		{
			name:   "two statements on one line",
			script: "USE shop; CREATE TABLE t (id int PRIMARY KEY);\nDROP TABLE u;",
			want:   []Statement{{1, "USE shop"}, {1, "CREATE TABLE t (id int PRIMARY KEY)"}, {2, "DROP TABLE u"}},
		},
		{
			name:   "a batch is one statement",
			script: "BEGIN BATCH\n  INSERT INTO t (id) VALUES (1);\n  UPDATE t SET v = 'x;y' WHERE id = 2;\napply  batch;\nSELECT * FROM t;",
			want: []Statement{
				{1, "BEGIN BATCH\n  INSERT INTO t (id) VALUES (1);\n  UPDATE t SET v = 'x;y' WHERE id = 2;\napply  batch"},
				{5, "SELECT * FROM t"},
			},
		},
		{
			name:   "counter and unlogged batches, with a timestamp",
			script: "BEGIN COUNTER BATCH USING TIMESTAMP 5 UPDATE c SET n = n + 1 WHERE k = 1; UPDATE c SET n = n + 2 WHERE k = 2; APPLY BATCH; BEGIN UNLOGGED BATCH INSERT INTO t (id) VALUES (3) APPLY BATCH",
			want: []Statement{
				{1, "BEGIN COUNTER BATCH USING TIMESTAMP 5 UPDATE c SET n = n + 1 WHERE k = 1; UPDATE c SET n = n + 2 WHERE k = 2; APPLY BATCH"},
				{1, "BEGIN UNLOGGED BATCH INSERT INTO t (id) VALUES (3) APPLY BATCH"},
			},
		},
		{
			name:   "a block comment with a semicolon, before and inside a statement",
			script: "/* setup; run once */\nCREATE TABLE t (\n    /* the key; never null */\n    id int PRIMARY KEY, /* trailing; kept */\n    v text\n);",
			want:   []Statement{{2, "CREATE TABLE t (\n    id int PRIMARY KEY, /* trailing; kept */\n    v text\n)"}},
		},
		{
			name:   "line comments with semicolons",
			script: "-- drop it; then create\n// both styles;\nCREATE TABLE t (id int PRIMARY KEY) -- the end; really\n;",
			want:   []Statement{{3, "CREATE TABLE t (id int PRIMARY KEY) -- the end; really"}},
		},
		{
			name:   "a multi-line string keeps its lines, blank ones included",
			script: "INSERT INTO notes (id, body) VALUES (1, 'first;\n\n  -- not a comment\nit''s the end');\nSELECT 1 FROM notes;",
			want: []Statement{
				{1, "INSERT INTO notes (id, body) VALUES (1, 'first;\n\n  -- not a comment\nit''s the end')"},
				{5, "SELECT 1 FROM notes"},
			},
		},
		{
			name:   "a $$ body",
			script: "CREATE FUNCTION f (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$\n  int y = x; // double it;\n  return y * 2;\n$$;\nSELECT f(1) FROM t;",
			want: []Statement{
				{1, "CREATE FUNCTION f (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$\n  int y = x; // double it;\n  return y * 2;\n$$"},
				{5, "SELECT f(1) FROM t"},
			},
		},
		{
			name:   "quoted names",
			script: `CREATE TABLE "Weird;Name" ("a""b" int PRIMARY KEY); SELECT "a""b" FROM "Weird;Name";`,
			want:   []Statement{{1, `CREATE TABLE "Weird;Name" ("a""b" int PRIMARY KEY)`}, {1, `SELECT "a""b" FROM "Weird;Name"`}},
		},
		{
			name:   "an unterminated string is kept for Cassandra to report",
			script: "SELECT 1 FROM t;\nINSERT INTO t (v) VALUES ('oops);\nSELECT 2 FROM t;",
			want:   []Statement{{1, "SELECT 1 FROM t"}, {2, "INSERT INTO t (v) VALUES ('oops);\nSELECT 2 FROM t;"}},
		},
		{
			name:   "CRLF line ends and trailing blanks",
			script: "CREATE TABLE t (  \r\n  id int PRIMARY KEY\r\n);\r\n;;\r\n",
			want:   []Statement{{1, "CREATE TABLE t (\n  id int PRIMARY KEY\n)"}},
		},
		{
			name:   "a word that merely starts like begin",
			script: "INSERT INTO begins (id) VALUES (1); SELECT * FROM begins;",
			want:   []Statement{{1, "INSERT INTO begins (id) VALUES (1)"}, {1, "SELECT * FROM begins"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Split(tc.script); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Split:\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestSplitFiles splits hand-written migration files of the kind teams
// keep next to their schema: reference data in a batch, a comment block
// with semicolons, multi-line strings, functions with $$ bodies.
func TestSplitFiles(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []Statement // the first line of each statement's text
	}{
		{"testdata/0003_shop_reference_data.cql", []Statement{
			{6, "CREATE TABLE IF NOT EXISTS shop.currencies ("},
			{12, "BEGIN UNLOGGED BATCH"},
			{18, "INSERT INTO shop.notices (id, body) VALUES (1, 'Prices include VAT;"},
			{22, "USE shop"},
			{22, "TRUNCATE currencies_staging"},
		}},
		{"testdata/0004_functions.cql", []Statement{
			{4, "CREATE OR REPLACE FUNCTION shop.cents_to_units (cents bigint, minor int)"},
			{14, "CREATE FUNCTION IF NOT EXISTS shop.avg_state (state tuple<int, bigint>, val int)"},
			{20, "CREATE AGGREGATE IF NOT EXISTS shop.average (int)"},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			src, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got := Split(string(src))
			var heads []Statement
			for _, s := range got {
				head, _, _ := strings.Cut(s.Text, "\n")
				heads = append(heads, Statement{s.Line, head})
			}
			if !reflect.DeepEqual(heads, tc.want) {
				t.Fatalf("statements:\n got %#v\nwant %#v", heads, tc.want)
			}
			// Every statement's text is verbatim from the file, and ends
			// where Cassandra would end it.
			for _, s := range got {
				if !strings.Contains(string(src), s.Text) {
					t.Errorf("line %d: text is not a piece of the file:\n%s", s.Line, s.Text)
				}
			}
		})
	}
	src, _ := os.ReadFile("testdata/0003_shop_reference_data.cql")
	stmts := Split(string(src))
	if batch := stmts[1].Text; strings.Count(batch, "INSERT INTO") != 3 || !strings.HasSuffix(batch, "APPLY BATCH") {
		t.Errorf("the batch lost statements:\n%s", batch)
	}
	if table := stmts[0].Text; !strings.Contains(table, "-- ISO 4217; three letters") || !strings.HasSuffix(table, "finance''s list'") {
		t.Errorf("the table lost its trailing comment or its comment option:\n%s", table)
	}
	if notice := stmts[2].Text; !strings.HasSuffix(notice, "shipping is extra.\n\nReturns within 30 days.')") {
		t.Errorf("the multi-line string was cut:\n%s", notice)
	}
	if ks, ok := stmts[3].Use(); !ok || ks != "shop" {
		t.Errorf("USE on a shared line: %q %v", ks, ok)
	}
	fn, _ := os.ReadFile("testdata/0004_functions.cql")
	if body := Split(string(fn))[0].Text; !strings.HasSuffix(body, "return cents / d;\n    $$") {
		t.Errorf("the $$ body was cut:\n%s", body)
	}
}

func TestSplitEdges(t *testing.T) {
	script := "CREATE TABLE users (\n    id uuid PRIMARY KEY,\n    -- a column comment\n    motto text\n);   \n;\n\nSELECT id FROM users"
	want := []Statement{
		{1, "CREATE TABLE users (\n    id uuid PRIMARY KEY,\n    motto text\n)"},
		{8, "SELECT id FROM users"},
	}
	if got := Split(script); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
}
