package tag

import (
	"fmt"
	"strconv"
	"strings"
)

// The values of pattern keys share one small lexical grammar: words
// (identifiers and keywords), unsigned integers, CQL string literals in
// single quotes ('' inside one is a quote), and the punctuation
// ( ) , % = < > /.

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokNumber
	tokPunct
	tokString // text is the string's value, quotes removed
	tokBad
)

type token struct {
	kind tokKind
	text string
	pos  int // byte index into the value's text
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of value"
	case tokBad:
		return fmt.Sprintf("%q", t.text)
	case tokString:
		return "'" + strings.ReplaceAll(t.text, "'", "''") + "'"
	}
	return fmt.Sprintf("%q", t.text)
}

type lexer struct {
	v    Value
	toks []token
	i    int
}

// soleIdent reads a value that is one identifier, for the key what.
func soleIdent(v Value, what string) (Ident, *Error) {
	lx := newLexer(v)
	id, err := lx.ident("bad-value", what)
	if err == nil {
		err = lx.end("bad-value", what)
	}
	return id, err
}

// oneLine reads a value of free text, trimmed, for the key what, which
// must be one line (the text is kept either way).
func oneLine(v Value, what string) (string, *Error) {
	text := strings.TrimSpace(v.Text)
	if strings.ContainsAny(text, "\n\r") {
		return text, &Error{Off: v.Off(0), Code: "bad-value", Msg: what + " must be one line"}
	}
	return text, nil
}

func newLexer(v Value) *lexer {
	lx := &lexer{v: v}
	s := v.Text
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case isWordStart(c):
			j := i + 1
			for j < len(s) && isWordPart(s[j]) {
				j++
			}
			lx.toks = append(lx.toks, token{tokWord, s[i:j], i})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && isWordPart(s[j]) {
				j++
			}
			lx.toks = append(lx.toks, token{tokNumber, s[i:j], i})
			i = j
		case c == '(' || c == ')' || c == ',' || c == '%' || c == '=' || c == '<' || c == '>' || c == '/':
			lx.toks = append(lx.toks, token{tokPunct, s[i : i+1], i})
			i++
		case c == '\'':
			text, n, ok := cqlString(s[i:])
			if !ok {
				lx.toks = append(lx.toks, token{tokBad, s[i:], i})
				i = len(s)
				continue
			}
			lx.toks = append(lx.toks, token{tokString, text, i})
			i += n
		default:
			lx.toks = append(lx.toks, token{tokBad, firstRune(s[i:]), i})
			i += len(firstRune(s[i:]))
		}
	}
	lx.toks = append(lx.toks, token{tokEOF, "", len(s)})
	return lx
}

// cqlString reads the string literal s starts with: its value, the bytes
// it spans, and false when it is not closed.
func cqlString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), i + 1, true
	}
	return "", len(s), false
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isWordPart(c byte) bool { return isWordStart(c) || (c >= '0' && c <= '9') }

func (lx *lexer) peek() token { return lx.toks[lx.i] }

func (lx *lexer) next() token {
	t := lx.toks[lx.i]
	if t.kind != tokEOF {
		lx.i++
	}
	return t
}

// accept consumes the punctuation p if it comes next.
func (lx *lexer) accept(p string) bool {
	if t := lx.peek(); t.kind == tokPunct && t.text == p {
		lx.i++
		return true
	}
	return false
}

func (lx *lexer) errorf(t token, code, format string, args ...any) *Error {
	return &Error{Off: lx.v.Off(t.pos), Code: code, Msg: fmt.Sprintf(format, args...)}
}

// expect consumes the punctuation p or fails naming what it found.
func (lx *lexer) expect(p, code, what string) *Error {
	if lx.accept(p) {
		return nil
	}
	t := lx.peek()
	return lx.errorf(t, code, "%s: expected %q, found %s", what, p, t)
}

// ident consumes a word and returns it as an Ident.
func (lx *lexer) ident(code, what string) (Ident, *Error) {
	t := lx.next()
	if t.kind != tokWord {
		return Ident{}, lx.errorf(t, code, "%s: expected a name, found %s", what, t)
	}
	return Ident{Name: t.text, Off: lx.v.Off(t.pos)}, nil
}

// number consumes an unsigned decimal integer.
func (lx *lexer) number(code, what string) (int64, token, *Error) {
	t := lx.next()
	if t.kind != tokNumber {
		return 0, t, lx.errorf(t, code, "%s: expected a number, found %s", what, t)
	}
	n, err := strconv.ParseInt(t.text, 10, 64)
	if err != nil {
		return 0, t, lx.errorf(t, code, "%s: %q is not a whole number", what, t.text)
	}
	return n, t, nil
}

// literal consumes a value of a where condition: a word, a number or a
// string.
func (lx *lexer) literal(code, what string) (Literal, *Error) {
	t := lx.next()
	switch t.kind {
	case tokWord, tokNumber:
		return Literal{Text: t.text, Off: lx.v.Off(t.pos)}, nil
	case tokString:
		return Literal{Text: t.text, Quoted: true, Off: lx.v.Off(t.pos)}, nil
	}
	return Literal{}, lx.errorf(t, code, "%s: expected a value (a word, a number or a 'string'), found %s", what, t)
}

// end fails unless the value is used up.
func (lx *lexer) end(code, what string) *Error {
	if t := lx.peek(); t.kind != tokEOF {
		return lx.errorf(t, code, "%s: unexpected %s", what, t)
	}
	return nil
}
