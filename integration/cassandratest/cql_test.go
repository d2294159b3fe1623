package cassandratest

import (
	"regexp"
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

func TestKeyspaceName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)
	a := keyspaceName("TestGenerated/Users_CRUD#01 with a very long subtest name indeed")
	b := keyspaceName("TestGenerated/Users_CRUD#01 with a very long subtest name indeed")
	for _, name := range []string{a, b} {
		if !valid.MatchString(name) {
			t.Errorf("%q is not a valid unquoted keyspace name", name)
		}
	}
	if a == b {
		t.Errorf("two calls gave the same name %q", a)
	}
}
