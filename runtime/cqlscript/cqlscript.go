// Package cqlscript splits a CQL script, such as a schema.cql that cqlgen
// generated, into statements that a driver can execute one by one.
//
// Drivers execute one statement per request and have no notion of a
// script; cqlsh's splitter is not available to Go programs. The rules here
// are the ones cqlgen's own output follows, and they suit hand-written
// migration files too: a statement ends with a semicolon at the end of a
// line; lines that start with -- or // are comments.
package cqlscript

import (
	"regexp"
	"strings"
)

// Statement is one statement of a script.
type Statement struct {
	Line int    // the 1-based line the statement starts on
	Text string // the statement, without its final semicolon
}

// Split returns the statements of script in order. A semicolon inside a
// line (in a string literal, say) does not end a statement; a last
// statement without a semicolon is kept.
func Split(script string) []Statement {
	var (
		stmts []Statement
		cur   []string
		start int
	)
	flush := func() {
		if text := strings.TrimSpace(strings.Join(cur, "\n")); text != "" {
			stmts = append(stmts, Statement{Line: start, Text: text})
		}
		cur = cur[:0]
	}
	for i, line := range strings.Split(script, "\n") {
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || strings.HasPrefix(trimmed, "//") {
			continue
		}
		if len(cur) == 0 {
			if trimmed == "" {
				continue
			}
			start = i + 1
		}
		if strings.HasSuffix(line, ";") {
			cur = append(cur, strings.TrimSuffix(line, ";"))
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return stmts
}

var (
	createKeyspace = regexp.MustCompile(`(?i)^create\s+keyspace\s`)
	use            = regexp.MustCompile(`(?i)^use\s+(\w+)\s*$`)
)

// IsCreateKeyspace reports whether s creates a keyspace.
func (s Statement) IsCreateKeyspace() bool { return createKeyspace.MatchString(s.Text) }

// Use returns the keyspace of a USE statement. Drivers refuse USE on a
// shared session, so a program applying a script switches sessions instead.
func (s Statement) Use() (keyspace string, ok bool) {
	m := use.FindStringSubmatch(s.Text)
	if m == nil {
		return "", false
	}
	return strings.ToLower(m[1]), true
}
