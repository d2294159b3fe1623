// Package tag is the generator's tag-parse stage. It reads struct tags as
// they stand in the source, literal quotes and all, so that every key and
// every byte of every value keeps its offset in the file: a mistake in a
// tag is reported at the column where it is, not at the start of the field.
//
// Scan splits a tag into key:"value" pairs following the reflect.StructTag
// convention; ParsePattern and ParseField apply cqlgen's grammar to them.
package tag

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Value is a decoded tag value that remembers where each of its bytes came
// from in the source literal.
type Value struct {
	Text string
	offs []int // offs[i] is the literal offset of Text[i]; offs[len(Text)] is the closing quote's
}

// Off returns the literal offset of byte i of v.Text; i == len(v.Text)
// gives the offset of the value's closing quote.
func (v Value) Off(i int) int {
	switch {
	case len(v.offs) == 0:
		return 0
	case i < 0:
		return v.offs[0]
	case i >= len(v.offs):
		return v.offs[len(v.offs)-1]
	}
	return v.offs[i]
}

// Pair is one key:"value" of a struct tag.
type Pair struct {
	Key    string
	KeyOff int // literal offset of the key's first byte
	Value  Value
}

// Error is a mistake in a tag, at an offset into the literal.
type Error struct {
	Off  int
	Code string
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("offset %d: %s", e.Off, e.Msg) }

// Scan splits the struct tag literal lit (as written in the source,
// including its backquotes or double quotes) into pairs. It accepts exactly
// what reflect.StructTag.Lookup accepts and, where that would silently stop
// reading, returns an error at the offending offset instead.
func Scan(lit string) ([]Pair, error) {
	content, err := decodeLiteral(lit)
	if err != nil {
		return nil, err
	}
	var pairs []Pair
	s := content
	for len(s.Text) > 0 {
		i := 0
		for i < len(s.Text) && s.Text[i] == ' ' {
			i++
		}
		s = s.slice(i, len(s.Text))
		if len(s.Text) == 0 {
			break
		}
		// A key is a run of non-control, non-space characters other than
		// a colon or a quote, as in reflect.StructTag.
		i = 0
		for i < len(s.Text) && s.Text[i] > ' ' && s.Text[i] != ':' && s.Text[i] != '"' && s.Text[i] != 0x7f {
			i++
		}
		if i == 0 {
			return nil, &Error{Off: s.Off(0), Code: "tag-syntax", Msg: fmt.Sprintf("struct tag: expected a key, found %q", firstRune(s.Text))}
		}
		if i >= len(s.Text) || s.Text[i] != ':' {
			return nil, &Error{Off: s.Off(i), Code: "tag-syntax", Msg: fmt.Sprintf("struct tag: key %q must be followed by :\"value\"", s.Text[:i])}
		}
		if i+1 >= len(s.Text) || s.Text[i+1] != '"' {
			return nil, &Error{Off: s.Off(i + 1), Code: "tag-syntax", Msg: fmt.Sprintf("struct tag: the value of %q must be a double-quoted string", s.Text[:i])}
		}
		key, keyOff := s.Text[:i], s.Off(0)
		s = s.slice(i+1, len(s.Text))
		// Find the closing quote of the value, skipping escapes.
		i = 1
		for i < len(s.Text) && s.Text[i] != '"' {
			if s.Text[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s.Text) {
			return nil, &Error{Off: s.Off(0), Code: "tag-syntax", Msg: fmt.Sprintf("struct tag: the value of %q has no closing quote", key)}
		}
		val, err := unquote(s.slice(0, i+1))
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, Pair{Key: key, KeyOff: keyOff, Value: val})
		s = s.slice(i+1, len(s.Text))
		if len(s.Text) > 0 && s.Text[0] != ' ' {
			return nil, &Error{Off: s.Off(0), Code: "tag-syntax", Msg: "struct tag: pairs must be separated by a space"}
		}
	}
	return pairs, nil
}

func firstRune(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	return string(r)
}

// slice returns v.Text[i:j] with its offsets.
func (v Value) slice(i, j int) Value {
	return Value{Text: v.Text[i:j], offs: v.offs[i : j+1]}
}

// decodeLiteral turns a Go string literal into its value, with offsets.
func decodeLiteral(lit string) (Value, error) {
	if len(lit) < 2 {
		return Value{}, &Error{Off: 0, Code: "tag-syntax", Msg: "struct tag: not a string literal"}
	}
	switch lit[0] {
	case '`':
		if lit[len(lit)-1] != '`' {
			return Value{}, &Error{Off: len(lit) - 1, Code: "tag-syntax", Msg: "struct tag: raw string has no closing backquote"}
		}
		var v Value
		text := make([]byte, 0, len(lit)-2)
		for i := 1; i < len(lit)-1; i++ {
			if lit[i] == '`' {
				return Value{}, &Error{Off: i, Code: "tag-syntax", Msg: "struct tag: backquote inside a raw string"}
			}
			if lit[i] == '\r' { // raw strings drop carriage returns
				continue
			}
			text = append(text, lit[i])
			v.offs = append(v.offs, i)
		}
		v.Text = string(text)
		v.offs = append(v.offs, len(lit)-1)
		return v, nil
	case '"':
		return unquote(Value{Text: lit, offs: identityOffsets(len(lit))})
	}
	return Value{}, &Error{Off: 0, Code: "tag-syntax", Msg: "struct tag: not a string literal"}
}

func identityOffsets(n int) []int {
	offs := make([]int, n+1)
	for i := range offs {
		offs[i] = i
	}
	return offs
}

// unquote decodes the double-quoted string q, carrying offsets over: every
// byte of a decoded character gets the offset where its escape began.
func unquote(q Value) (Value, error) {
	s := q.Text
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return Value{}, &Error{Off: q.Off(0), Code: "tag-syntax", Msg: "struct tag: value is not a quoted string"}
	}
	var out Value
	text := make([]byte, 0, len(s))
	rest := s[1 : len(s)-1]
	pos := 1
	for len(rest) > 0 {
		if rest[0] == '\n' {
			return Value{}, &Error{Off: q.Off(pos), Code: "tag-syntax", Msg: "struct tag: line break inside a quoted value"}
		}
		r, multibyte, tail, err := strconv.UnquoteChar(rest, '"')
		if err != nil {
			return Value{}, &Error{Off: q.Off(pos), Code: "tag-syntax", Msg: fmt.Sprintf("struct tag: bad escape in %s", s)}
		}
		n := len(text)
		if r < utf8.RuneSelf || !multibyte {
			text = append(text, byte(r))
		} else {
			text = utf8.AppendRune(text, r)
		}
		for range len(text) - n {
			out.offs = append(out.offs, q.Off(pos))
		}
		pos += len(rest) - len(tail)
		rest = tail
	}
	out.Text = string(text)
	out.offs = append(out.offs, q.Off(len(s)-1))
	return out, nil
}
