package schemadiff

import (
	"slices"
	"testing"
)

// Published schemas comment their columns with // and /* */ as well as
// --; a comment inside CREATE TABLE must not become a column.
func TestParseComments(t *testing.T) {
	s, err := Parse(`CREATE TABLE t (
    a int, // the key
    /* a block
       comment */ b text, -- the value
    PRIMARY KEY (a)
);`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range s.Tables[0].Columns {
		names = append(names, c.Name+" "+c.Type)
	}
	if want := []string{"a int", "b text"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
}

// What import reads besides a comparison: user-defined types, masks,
// index classes and options, where each table starts and the options
// no comparison reads.
func TestParseForImport(t *testing.T) {
	s, err := Parse(`CREATE TYPE IF NOT EXISTS ks.address (street text, tags frozen<set<text>>);

  CREATE TABLE ks.users (
    id uuid PRIMARY KEY,
    email text MASKED WITH mask_inner(1, 2),
    card text MASKED WITH mask_replace('****'),
    home frozen<address>,
    v vector<float, 3>
) WITH caching = {'keys': 'ALL'} AND comment = 'x' AND bloom_filter_fp_chance = 0.01;
CREATE CUSTOM INDEX users_v ON ks.users (v) USING 'org.apache.cassandra.index.sai.StorageAttachedIndex' WITH OPTIONS = {'similarity_function': 'DOT_PRODUCT'};
CREATE INDEX users_email ON ks.users (email);
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Types) != 1 || s.Types[0].Name != "address" || len(s.Types[0].Fields) != 2 || s.Types[0].Fields[1].Type != "frozen<set<text>>" || s.Types[0].Line != 1 {
		t.Errorf("types: %+v", s.Types)
	}
	u := s.Tables[0]
	if u.Line != 3 || u.Col != 3 {
		t.Errorf("users at %d:%d, want 3:3", u.Line, u.Col)
	}
	if u.Columns[1].Mask != "mask_inner(1, 2)" || u.Columns[2].Mask != "mask_replace('****')" || u.Columns[0].Mask != "" {
		t.Errorf("masks: %+v", u.Columns)
	}
	if u.Options.Comment != "x" || !slices.Equal(u.Unread, []string{"caching", "bloom_filter_fp_chance"}) {
		t.Errorf("options %+v, unread %q", u.Options, u.Unread)
	}
	if len(s.Indexes) != 2 {
		t.Fatalf("indexes: %+v", s.Indexes)
	}
	if ix := s.Indexes[0]; ix.Class != "StorageAttachedIndex" || ix.Options != "similarity_function=DOT_PRODUCT" || ix.Column != "v" || ix.Line != 10 {
		t.Errorf("SAI index: %+v", ix)
	}
	if ix := s.Indexes[1]; ix.Class != "" || ix.Column != "email" {
		t.Errorf("legacy index: %+v", ix)
	}
}
