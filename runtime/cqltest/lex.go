package cqltest

import (
	"fmt"
	"strings"
)

// The lexer and the small recursive-descent helpers shared by the DDL and
// the statement parsers. CQL is case-insensitive in keywords and unquoted
// identifiers; whitespace of any kind and comments (--, //, /* */) may
// separate any two tokens.

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // unquoted identifier or keyword, lowercased
	tQuoted         // "quoted identifier", case kept
	tString         // 'string literal', unescaped
	tNumber         // 12, 1.5, 1e3 (the sign is a separate token)
	tMark           // ?
	tPunct          // ( ) , ; . = < > <= >= != * { } [ ] : + -
)

type token struct {
	kind tokKind
	text string
	pos  int // byte offset in the source
	end  int // byte offset just after it
}

// lex splits src into tokens, ending with a tEOF token.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(src[i:], "--") || strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("%s: unterminated comment", where(src, i))
			}
			i += 2 + end + 2
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			toks = append(toks, token{tIdent, strings.ToLower(src[i:j]), i, j})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isDigit(src[j]) || src[j] == '.' ||
				src[j] == 'e' || src[j] == 'E' ||
				((src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E'))) {
				j++
			}
			toks = append(toks, token{tNumber, src[i:j], i, j})
			i = j
		case c == '\'' || c == '"':
			text, n, ok := quoted(src[i:], c)
			if !ok {
				return nil, fmt.Errorf("%s: unterminated %s", where(src, i), map[byte]string{'\'': "string", '"': "quoted identifier"}[c])
			}
			kind := tString
			if c == '"' {
				kind = tQuoted
			}
			toks = append(toks, token{kind, text, i, i + n})
			i += n
		case c == '?':
			toks = append(toks, token{tMark, "?", i, i + 1})
			i++
		case c == '<' || c == '>' || c == '!':
			if i+1 < len(src) && src[i+1] == '=' {
				toks = append(toks, token{tPunct, src[i : i+2], i, i + 2})
				i += 2
				continue
			}
			if c == '!' {
				return nil, fmt.Errorf("%s: unexpected %q", where(src, i), c)
			}
			toks = append(toks, token{tPunct, string(c), i, i + 1})
			i++
		case strings.IndexByte("(),;.=*{}[]:+-", c) >= 0:
			toks = append(toks, token{tPunct, string(c), i, i + 1})
			i++
		default:
			return nil, fmt.Errorf("%s: unexpected %q", where(src, i), rune(c))
		}
	}
	return append(toks, token{tEOF, "", len(src), len(src)}), nil
}

// quoted reads a literal opened by q at s[0]; a doubled q stands for one.
func quoted(s string, q byte) (text string, n int, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != q {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), i + 1, true
	}
	return "", 0, false
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// where describes a position in src as line:column, as Cassandra's
// syntax errors do.
func where(src string, pos int) string {
	line, col := 1, 0
	for i := 0; i < pos && i < len(src); i++ {
		if src[i] == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d:%d", line, col)
}

// parser walks the tokens of one source text.
type parser struct {
	src  string
	toks []token
	i    int
}

func newParser(src string) (*parser, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	return &parser{src: src, toks: toks}, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// keyword consumes the unquoted keyword kw (lowercase) if it comes next.
func (p *parser) keyword(kw string) bool { return p.accept(tIdent, kw) }

// keywords consumes a sequence of keywords, all or none.
func (p *parser) keywords(kws ...string) bool {
	for k, kw := range kws {
		t := p.toks[min(p.i+k, len(p.toks)-1)]
		if t.kind != tIdent || t.text != kw {
			return false
		}
	}
	p.i += len(kws)
	return true
}

func (p *parser) expectKeyword(kws ...string) error {
	if !p.keywords(kws...) {
		return p.errorf("expecting %s", strings.ToUpper(strings.Join(kws, " ")))
	}
	return nil
}

// punct consumes the punctuation s if it comes next.
func (p *parser) punct(s string) bool { return p.accept(tPunct, s) }

// accept consumes the token of kind and text if it comes next.
func (p *parser) accept(kind tokKind, text string) bool {
	if t := p.peek(); t.kind == kind && t.text == text {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) error {
	if !p.punct(s) {
		return p.errorf("expecting '%s'", s)
	}
	return nil
}

// ident reads an identifier: unquoted (lowercased) or quoted (as is).
func (p *parser) ident(what string) (string, error) {
	t := p.peek()
	if t.kind != tIdent && t.kind != tQuoted {
		return "", p.errorf("expecting %s", what)
	}
	p.i++
	return t.text, nil
}

// column reads a column name and finds it in t.
func (p *parser) column(t *table) (*column, error) {
	name, err := p.ident("a column name")
	if err != nil {
		return nil, err
	}
	return t.column(name)
}

// name reads a possibly keyspace-qualified name and returns its last part:
// one keyspace is all this package models.
func (p *parser) name(what string) (string, error) {
	n, err := p.ident(what)
	if err != nil {
		return "", err
	}
	if p.punct(".") {
		return p.ident(what)
	}
	return n, nil
}

// errorf reports a syntax error at the next token, quoting it and the
// statement around it.
func (p *parser) errorf(format string, args ...any) error {
	t := p.peek()
	found := "<EOF>"
	if t.kind != tEOF {
		found = "'" + p.src[t.pos:t.end] + "'"
	}
	return &parseError{fmt.Sprintf("%s mismatched input %s %s in %q", where(p.src, t.pos), found, fmt.Sprintf(format, args...), excerpt(p.src, t.pos))}
}

// parseError is a syntax error; it quotes the text.
type parseError struct{ msg string }

func (e *parseError) Error() string { return e.msg }

// excerpt is the text around pos, on one line, for error messages.
func excerpt(src string, pos int) string {
	start := max(0, pos-40)
	end := min(len(src), pos+60)
	s := strings.Join(strings.Fields(src[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(src) {
		s += "…"
	}
	return s
}
