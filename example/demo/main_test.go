package main

import (
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// TestWithPrefix: with a prefix, every keyspace the examples' schemas
// create and use is renamed, and nothing else changes; without one,
// nothing does.
func TestWithPrefix(t *testing.T) {
	for _, schema := range []string{music.Schema, messaging.Schema, helpdesk.Schema} {
		creates, uses := 0, 0
		for _, st := range cqlscript.Split(schema) {
			if got := withPrefix(st, ""); got != st {
				t.Errorf("no prefix: %q became %q", st.Text, got.Text)
			}
			got := withPrefix(st, "ann_")
			ks, use := st.Use()
			switch {
			case use:
				uses++
				if got.Text != "USE ann_"+ks || got.Line != st.Line {
					t.Errorf("%q became %q (line %d)", st.Text, got.Text, got.Line)
				}
			case st.IsCreateKeyspace():
				creates++
				want := strings.Replace(st.Text, "EXISTS "+uses0(schema), "EXISTS ann_"+uses0(schema), 1)
				if got.Text != want || got.Text == st.Text {
					t.Errorf("%q became %q, want %q", st.Text, got.Text, want)
				}
			default:
				if got != st {
					t.Errorf("%q became %q", st.Text, got.Text)
				}
			}
		}
		if creates != 1 || uses != 1 {
			t.Errorf("a schema with %d CREATE KEYSPACE and %d USE; the test expects one of each", creates, uses)
		}
	}
}

// uses0 is the keyspace a script USEs.
func uses0(script string) string {
	for _, st := range cqlscript.Split(script) {
		if ks, ok := st.Use(); ok {
			return ks
		}
	}
	return ""
}
