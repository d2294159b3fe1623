package cqlspec

import (
	"reflect"
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
