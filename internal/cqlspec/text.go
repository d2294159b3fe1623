package cqlspec

import (
	"strconv"
	"strings"
)

// CQL is the statement's text, clauses on their own lines, a long clause
// continued over several at its commas or before its ANDs: the text sent,
// and the text a reviewer reads.
func (s *Statement) CQL() string {
	lines := make([]string, len(s.Clauses))
	for i, c := range s.Clauses {
		lines[i] = wrapClause(c)
	}
	return strings.Join(lines, "\n\t")
}

// clauseWidth keeps the lines of a statement short enough to read in a
// diff.
const clauseWidth = 72

func wrapClause(c string) string {
	if len(c) <= clauseWidth {
		return c
	}
	// The places a line may end: after ", " and before " AND ", but not
	// inside a short parenthesized group, (a, b) > (?, ?) or token(a, b),
	// which reads best whole. A long one, an INSERT's column list, breaks
	// at its commas.
	var parts []string
	start := 0
	for i := 0; i < len(c); i++ {
		switch {
		case c[i] == '(':
			if end := matchingParen(c, i); end > i && end-i <= 40 {
				i = end
			}
		case strings.HasPrefix(c[i:], ", "):
			parts = append(parts, c[start:i+2])
			start = i + 2
		case i > start && strings.HasPrefix(c[i:], " AND "):
			parts = append(parts, c[start:i])
			start = i
		}
	}
	parts = append(parts, c[start:])
	var b strings.Builder
	line := 0
	for i, part := range parts {
		if i > 0 && line+len(part) > clauseWidth {
			b.WriteString("\n\t\t")
			line = 0
			part = strings.TrimLeft(part, " ")
		}
		b.WriteString(part)
		line += len(part)
	}
	return strings.ReplaceAll(b.String(), ", \n", ",\n")
}

// matchingParen is the index of the ')' that closes c[open], or -1.
func matchingParen(c string, open int) int {
	depth := 0
	for i := open; i < len(c); i++ {
		switch c[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// Label names the statement in a listing: its slot, the clustering column
// an After starts at, the depth of a prefix read and the scatter form.
func (s *Statement) Label() string {
	l := string(s.Slot)
	if s.Slot == SlotAfter {
		l += " " + strconv.Itoa(s.Level)
	}
	if s.Depth > 0 {
		l += ", prefix " + strconv.Itoa(s.Depth)
	}
	if s.Scatter {
		l += ", scatter"
	}
	return l
}
