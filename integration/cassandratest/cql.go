package cassandratest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// ApplyCQL runs the statements of a CQL script on session, in order,
// skipping CREATE KEYSPACE and USE. It stops at the first failing statement
// and names it, with its line, in the error.
func ApplyCQL(session *gocql.Session, src string) error {
	return applyCQL(session, "", src)
}

// ApplyCQLFile is ApplyCQL on the contents of a file.
func ApplyCQLFile(session *gocql.Session, path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return applyCQL(session, path+":", string(src))
}

func applyCQL(session *gocql.Session, where, src string) error {
	for _, s := range cqlscript.Split(src) {
		if _, use := s.Use(); use || s.IsCreateKeyspace() {
			continue // a test's session already has its own keyspace
		}
		if err := session.Query(s.Text).Exec(); err != nil {
			return fmt.Errorf("%sline %d: %w\n\t%s", where, s.Line, err,
				strings.ReplaceAll(s.Text, "\n", "\n\t"))
		}
	}
	return nil
}

// MustApplyCQL is ApplyCQL that fails the test on error.
func MustApplyCQL(t testing.TB, session *gocql.Session, src string) {
	t.Helper()
	if err := ApplyCQL(session, src); err != nil {
		t.Fatalf("cassandratest: applying CQL: %v", err)
	}
}

// MustApplyCQLFile is ApplyCQLFile that fails the test on error.
func MustApplyCQLFile(t testing.TB, session *gocql.Session, path string) {
	t.Helper()
	if err := ApplyCQLFile(session, path); err != nil {
		t.Fatalf("cassandratest: applying CQL: %v", err)
	}
}
