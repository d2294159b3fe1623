package cassandratest

import (
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

func TestKeyspaceStatementsAreRecognised(t *testing.T) {
	for text, want := range map[string]bool{
		"CREATE KEYSPACE x WITH replication = {}": true,
		"create  keyspace\nif not exists x":       true,
		"USE shop":                                true,
		"use\tshop":                               true,
		"CREATE TABLE users (id int PRIMARY KEY)": false,
		"CREATE TABLE user_keyspaces (id int)":    false,
		"UPDATE users SET x = 1":                  false,
	} {
		s := cqlscript.Statement{Text: text}
		_, use := s.Use()
		if got := use || s.IsCreateKeyspace(); got != want {
			t.Errorf("%q: skipped = %v, want %v", text, got, want)
		}
	}
}
