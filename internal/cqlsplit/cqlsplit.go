// Package cqlsplit splits a CQL script into the statements a driver
// executes one by one, by CQL's own lexical rules: a semicolon ends a
// statement only outside strings, quoted names, $$ bodies, comments and
// batches. runtime/cqlscript is its public face and documents the rules;
// the importer and schemadiff use it directly, as nothing in internal/
// imports upward.
package cqlsplit

import (
	"regexp"
	"strings"
)

// Statement is one statement of a script.
type Statement struct {
	Line int    // the 1-based line the statement's first word is on
	Text string // the statement, without its final semicolon
}

// Split returns the statements of script in order. Empty statements (a
// lone semicolon) are dropped; a last statement without a semicolon is
// kept, and so is one whose string or comment never ends: Cassandra, not
// Split, reports it.
func Split(script string) []Statement {
	var (
		stmts []Statement
		sp    = splitter{src: script, line: 1}
		cur   strings.Builder
		start int // line of the current statement; 0 when none is open
		first string
		last  [2]string // the statement's last two words, upper case
		// dropNewline is set after a comment left out of the text: the
		// line break that ends its line goes with it.
		dropNewline bool
	)
	flush := func() {
		if text := strings.TrimRight(cur.String(), " \t\r\n"); text != "" {
			stmts = append(stmts, Statement{Line: start, Text: text})
		}
		cur.Reset()
		start, first, last = 0, "", [2]string{}
	}
	for {
		tok := sp.next()
		if tok.kind == tokEOF {
			break
		}
		text := script[tok.start:tok.end]
		if start == 0 && (tok.kind == tokSpace || tok.kind == tokComment || tok.kind == tokSemicolon) {
			continue // before a statement: nothing to keep
		}
		switch tok.kind {
		case tokSpace:
			text = trimBlankLines(text)
			if dropNewline {
				text = strings.TrimPrefix(text, "\n")
				dropNewline = false
			}
			cur.WriteString(text)
			continue
		case tokComment:
			if alone(cur.String()) {
				trimLine(&cur)
				dropNewline = true
				continue
			}
			cur.WriteString(text)
			continue
		case tokSemicolon:
			if strings.EqualFold(first, "begin") && !(last[0] == "APPLY" && last[1] == "BATCH") {
				cur.WriteString(text) // a statement inside a batch
				continue
			}
			flush()
			continue
		}
		dropNewline = false
		if start == 0 {
			start = tok.line
		}
		if tok.kind == tokWord {
			if first == "" {
				first = text
			}
			last = [2]string{last[1], strings.ToUpper(text)}
		} else {
			last = [2]string{last[1], ""}
		}
		cur.WriteString(text)
	}
	flush()
	return stmts
}

// alone reports whether nothing but blanks precedes the end of text on its
// last line: a comment there stands alone on its line.
func alone(text string) bool {
	tail := text[strings.LastIndexByte(text, '\n')+1:]
	return strings.TrimLeft(tail, " \t\r") == ""
}

// trimLine removes the blanks that end b's last line.
func trimLine(b *strings.Builder) {
	s := b.String()
	t := strings.TrimRight(s, " \t\r")
	if len(t) != len(s) {
		b.Reset()
		b.WriteString(t)
	}
}

// trimBlankLines removes the blanks before each line break of a run of
// white space, so that no line of a statement ends in blanks.
func trimBlankLines(space string) string {
	if !strings.Contains(space, "\n") {
		return space
	}
	lines := strings.Split(space, "\n")
	for i := range len(lines) - 1 {
		lines[i] = ""
	}
	return strings.Join(lines, "\n")
}

type tokKind int

const (
	tokEOF       tokKind = iota
	tokSpace             // blanks and line breaks
	tokComment           // -- or // to the end of the line, or /* ... */
	tokWord              // a keyword, name or number
	tokString            // '...', "...", $$...$$
	tokSemicolon         // ;
	tokOther             // any other character
)

type token struct {
	kind       tokKind
	start, end int // byte offsets into the script
	line       int // 1-based line of start
}

// splitter is a lexer of just enough CQL to find where statements end.
type splitter struct {
	src  string
	i    int
	line int
}

func (s *splitter) next() token {
	if s.i >= len(s.src) {
		return token{kind: tokEOF}
	}
	tok := token{start: s.i, line: s.line}
	c := s.src[s.i]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		tok.kind = tokSpace
		for s.i < len(s.src) && strings.IndexByte(" \t\r\n", s.src[s.i]) >= 0 {
			s.advance(1)
		}
	case s.has("--") || s.has("//"):
		tok.kind = tokComment
		for s.i < len(s.src) && s.src[s.i] != '\n' {
			s.advance(1)
		}
	case s.has("/*"):
		tok.kind = tokComment
		s.until(2, "*/")
	case s.has("$$"):
		tok.kind = tokString
		s.until(2, "$$")
	case c == '\'' || c == '"':
		tok.kind = tokString
		s.quoted(c)
	case c == ';':
		tok.kind = tokSemicolon
		s.advance(1)
	case isWord(c):
		tok.kind = tokWord
		for s.i < len(s.src) && isWord(s.src[s.i]) {
			s.advance(1)
		}
	default:
		tok.kind = tokOther
		s.advance(1)
	}
	tok.end = s.i
	return tok
}

// has reports whether the script continues with prefix.
func (s *splitter) has(prefix string) bool { return strings.HasPrefix(s.src[s.i:], prefix) }

// advance moves n bytes on, counting lines.
func (s *splitter) advance(n int) {
	for range n {
		if s.src[s.i] == '\n' {
			s.line++
		}
		s.i++
	}
}

// until skips an opening of n bytes, then everything up to and including
// end, or to the end of the script when end never comes.
func (s *splitter) until(n int, end string) {
	s.advance(n)
	for s.i < len(s.src) && !s.has(end) {
		s.advance(1)
	}
	if s.i < len(s.src) {
		s.advance(len(end))
	}
}

// quoted skips a string or a quoted name, where a doubled quote stands for
// one.
func (s *splitter) quoted(q byte) {
	s.advance(1)
	for s.i < len(s.src) {
		if s.src[s.i] == q {
			if s.i+1 < len(s.src) && s.src[s.i+1] == q {
				s.advance(2)
				continue
			}
			s.advance(1)
			return
		}
		s.advance(1)
	}
}

// isWord reports a byte of a keyword, an unquoted name or a number; bytes
// of UTF-8 sequences count, so that no multi-byte character is split.
func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
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
