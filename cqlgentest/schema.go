package cqlgentest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// Schema creates a keyspace on Default's Cassandra that only this test
// uses and applies the CQL file at path to it; see Cassandra.Schema.
func Schema(t testing.TB, path string, tweak ...func(*gocql.ClusterConfig)) (*gocql.Session, string) {
	t.Helper()
	return Default.Schema(t, path, tweak...)
}

// Schema creates a keyspace that only this test uses (Keyspace) and
// applies the CQL file at path to it, the schema.cql cqlgen generated
// beside a package, say: the script's own keyspace (its CREATE KEYSPACE or
// USE) is the test's instead. It returns the session bound to the keyspace
// and its name.
func (c *Cassandra) Schema(t testing.TB, path string, tweak ...func(*gocql.ClusterConfig)) (*gocql.Session, string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cqlgentest: reading the schema: %v", err)
	}
	session, ks := c.Keyspace(t, tweak...)
	if err := Apply(session, ks, string(src)); err != nil {
		t.Fatalf("cqlgentest: applying %s: %v", path, err)
	}
	return session, ks
}

// Apply runs the statements of a CQL script on session, in order, in
// keyspace: its CREATE KEYSPACE and USE statements are skipped, and names
// qualified by the keyspace they name (music.tracks) are qualified by
// keyspace instead. It stops at the first statement that fails and names
// it, with its line.
func Apply(session *gocql.Session, keyspace, script string) error {
	stmts := cqlscript.Split(script)
	from := ""
	for _, s := range stmts {
		if ks, ok := s.Use(); ok {
			from = ks
			break
		}
		if m := createKeyspace.FindStringSubmatch(s.Text); m != nil {
			from = strings.ToLower(m[1])
			break
		}
	}
	for _, s := range stmts {
		if _, use := s.Use(); use || s.IsCreateKeyspace() {
			continue
		}
		text := s.Text
		if from != "" {
			text = Requalify(text, from, keyspace)
		}
		if err := session.Query(text).Exec(); err != nil {
			return fmt.Errorf("line %d: %w\n\t%s", s.Line, err, strings.ReplaceAll(text, "\n", "\n\t"))
		}
	}
	return nil
}

var createKeyspace = regexp.MustCompile(`(?i)^create\s+keyspace\s+(?:if\s+not\s+exists\s+)?"?(\w+)"?`)

// Requalify replaces the keyspace from by to wherever it qualifies a name
// in a statement (from.table, "from".table), case-insensitively as
// Cassandra reads unquoted names, and nowhere else: not in string
// literals, $$ bodies or comments, nor in a longer name.
func Requalify(stmt, from, to string) string {
	var b strings.Builder
	for i := 0; i < len(stmt); {
		switch {
		case stmt[i] == '\'':
			j := skipQuoted(stmt, i)
			b.WriteString(stmt[i:j])
			i = j
		case verbatimEnd(stmt, i) > i:
			j := verbatimEnd(stmt, i)
			b.WriteString(stmt[i:j])
			i = j
		case isIdent(stmt[i]) && (i == 0 || !isIdent(stmt[i-1]) && stmt[i-1] != '.'):
			j := i
			for j < len(stmt) && isIdent(stmt[j]) {
				j++
			}
			if strings.EqualFold(stmt[i:j], from) && j < len(stmt) && stmt[j] == '.' {
				b.WriteString(to)
			} else {
				b.WriteString(stmt[i:j])
			}
			i = j
		case stmt[i] == '"':
			j := strings.IndexByte(stmt[i+1:], '"')
			if j < 0 { // unterminated: Cassandra will say so
				b.WriteString(stmt[i:])
				i = len(stmt)
				break
			}
			end := i + 1 + j // the closing quote
			if stmt[i+1:end] == from && end+1 < len(stmt) && stmt[end+1] == '.' {
				b.WriteString(to)
			} else {
				b.WriteString(stmt[i : end+1])
			}
			i = end + 1
		default:
			b.WriteByte(stmt[i])
			i++
		}
	}
	return b.String()
}

// verbatim are the openers of what Requalify copies as it is, with what
// closes each: a $$ body and the comments.
var verbatim = [...]struct{ open, close string }{{"$$", "$$"}, {"--", "\n"}, {"//", "\n"}, {"/*", "*/"}}

// verbatimEnd returns the index just past the $$ body or comment that
// starts at i (the end of s when it is not closed), or i when none does.
func verbatimEnd(s string, i int) int {
	for _, v := range verbatim {
		if strings.HasPrefix(s[i:], v.open) {
			if j := strings.Index(s[i+len(v.open):], v.close); j >= 0 {
				return i + len(v.open) + j + len(v.close)
			}
			return len(s)
		}
	}
	return i
}

// skipQuoted returns the index just past the string literal at i, whose
// quotes are doubled inside it.
func skipQuoted(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\'' {
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
