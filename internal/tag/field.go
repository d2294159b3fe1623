package tag

import (
	"fmt"
	"strconv"
	"strings"
)

// TypeExpr is a CQL type as written in a cql:"..." override, such as
// timeuuid, date or set<ascii>. Names are lower-cased.
type TypeExpr struct {
	Name   string
	Params []*TypeExpr
	Off    int
	// Dim is the dimension of vector<float, N>, its last parameter, a
	// number; DimOff is its offset, 0 when there is none.
	Dim    int64
	DimOff int
}

func (t *TypeExpr) String() string {
	if len(t.Params) == 0 && t.DimOff <= 0 {
		return t.Name
	}
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		parts[i] = p.String()
	}
	if t.DimOff > 0 {
		parts = append(parts, strconv.FormatInt(t.Dim, 10))
	}
	return t.Name + "<" + strings.Join(parts, ", ") + ">"
}

// Field is what the tag of an entity field says to cqlgen.
type Field struct {
	Column *Ident // from db:"name"; nil when the tag gives none
	// Quoted is the option of db:"name,quoted": the column of an existing
	// table whose name CQL reads only in double quotes (a reserved word
	// such as from, or a mixed-case name such as createdAt). Nil when not
	// given.
	Quoted *Ident
	Skip   bool      // db:"-"
	Type   *TypeExpr // from cql:"type"; nil when the tag gives none
	// Unique is the option of cql:"type,unique": the column's values are
	// unique on their own (a uuid or timeuuid). Nil when not given.
	Unique *Ident
	// Mask is mask:"...", the column's dynamic data mask; nil when the
	// tag gives none.
	Mask *Mask
	// TTL and Writetime are the options of cqlgen:"ttl, writetime": the
	// entity's GetTimes reads the remaining time to live and the write
	// time of the field's column. Nil when not given.
	TTL, Writetime *Ident
}

// Mask is a masking function as mask:"..." names it: default, null,
// hash, inner(N, N), outer(N, N) or replace(value), the function
// Cassandra calls mask_<name>.
type Mask struct {
	Name string
	Args []Literal // inner and outer: two numbers; replace: one value
	Off  int
}

// maskArgs is how many arguments each masking function takes.
var maskArgs = map[string]int{"default": 0, "null": 0, "hash": 0, "inner": 2, "outer": 2, "replace": 1}

// parseMask reads a mask:"..." value.
func parseMask(v Value) (*Mask, *Error) {
	const code = "bad-mask"
	lx := newLexer(v)
	t := lx.next()
	n, ok := maskArgs[strings.ToLower(t.text)]
	if t.kind != tokWord || !ok {
		return nil, lx.errorf(t, code, "mask: expected default, null, hash, inner(N, N), outer(N, N) or replace(value), found %s", t)
	}
	m := &Mask{Name: strings.ToLower(t.text), Off: lx.v.Off(t.pos)}
	if n > 0 || lx.peek().text == "(" {
		if err := lx.expect("(", code, "mask "+m.Name); err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if i > 0 {
				if err := lx.expect(",", code, "mask "+m.Name); err != nil {
					return nil, err
				}
			}
			a, err := lx.literal(code, "mask "+m.Name)
			if err != nil {
				return nil, err
			}
			m.Args = append(m.Args, a)
		}
		if err := lx.expect(")", code, "mask "+m.Name); err != nil {
			return nil, err
		}
	}
	return m, lx.end(code, "mask")
}

// ParseField reads the db, cql and mask keys of a field's tag literal; other
// keys (json, yaml, ...) are left alone.
func ParseField(lit string) (Field, []*Error) {
	var f Field
	pairs, err := Scan(lit)
	if err != nil {
		return f, []*Error{err.(*Error)}
	}
	var errs []*Error
	seen := map[string]bool{}
	for _, kv := range pairs {
		if kv.Key != "db" && kv.Key != "cql" && kv.Key != "mask" && kv.Key != "cqlgen" {
			continue
		}
		if seen[kv.Key] {
			errs = append(errs, &Error{Off: kv.KeyOff, Code: "tag-syntax", Msg: fmt.Sprintf("%s is given twice", kv.Key)})
			continue
		}
		seen[kv.Key] = true
		switch kv.Key {
		case "db":
			// gocqlx reads only the part before a comma; so do we, but
			// for the option quoted, which gocqlx ignores.
			name, opts, _ := strings.Cut(kv.Value.Text, ",")
			off := len(name) + 1
			for _, opt := range strings.Split(opts, ",") {
				if strings.TrimSpace(opt) == "quoted" {
					f.Quoted = &Ident{Name: "quoted", Off: kv.Value.Off(off + strings.Index(opt, "quoted"))}
				}
				off += len(opt) + 1
			}
			switch {
			case name == "-":
				f.Skip = true
			case name == "":
				errs = append(errs, &Error{Off: kv.Value.Off(0), Code: "bad-value", Msg: `db: empty column name (leave the tag out for the default, or write db:"-" to skip the field)`})
			default:
				f.Column = &Ident{Name: name, Off: kv.Value.Off(0)}
			}
		case "cqlgen":
			errs = append(errs, f.parseTimes(kv.Value)...)
		case "mask":
			m, e := parseMask(kv.Value)
			if e != nil {
				errs = append(errs, e)
				continue
			}
			f.Mask = m
		case "cql":
			lx := newLexer(kv.Value)
			t, e := parseType(lx, 0)
			if e == nil && lx.accept(",") {
				f.Unique, e = parseOption(lx)
			}
			if e == nil {
				e = lx.end("bad-value", "cql")
			}
			if e != nil {
				errs = append(errs, e)
				continue
			}
			f.Type = t
		}
	}
	return f, errs
}

// parseOption reads the option after a cql type and its comma; unique
// is the only one.
func parseOption(lx *lexer) (*Ident, *Error) {
	opt, e := lx.ident("bad-value", "cql")
	if e != nil {
		return nil, e
	}
	if opt.Name != "unique" {
		return nil, &Error{Off: opt.Off, Code: "bad-value", Msg: fmt.Sprintf("cql: unknown option %q after the type; the one option is unique, for a uuid or timeuuid whose values are unique on their own (cql:\"timeuuid,unique\")", opt.Name)}
	}
	return &opt, nil
}

// maxTypeDepth bounds nesting; CQL types in practice nest two or three deep.
const maxTypeDepth = 8

func parseType(lx *lexer, depth int) (*TypeExpr, *Error) {
	t := lx.next()
	if depth > maxTypeDepth {
		return nil, lx.errorf(t, "bad-value", "cql: type nests deeper than %d levels", maxTypeDepth)
	}
	if t.kind != tokWord {
		return nil, lx.errorf(t, "bad-value", "cql: expected a CQL type name, found %s", t)
	}
	te := &TypeExpr{Name: strings.ToLower(t.text), Off: lx.v.Off(t.pos)}
	if !lx.accept("<") {
		return te, nil
	}
	for {
		if n := lx.peek(); n.kind == tokNumber && te.Name == "vector" && len(te.Params) == 1 {
			// vector<float, 384>: the dimension.
			dim, tok, err := lx.number("bad-value", "vector<type, dimension>")
			if err != nil {
				return nil, err
			}
			te.Dim, te.DimOff = dim, lx.v.Off(tok.pos)
			if err := lx.expect(">", "bad-value", "vector<type, dimension>"); err != nil {
				return nil, err
			}
			return te, nil
		}
		p, err := parseType(lx, depth+1)
		if err != nil {
			return nil, err
		}
		te.Params = append(te.Params, p)
		if lx.accept(">") {
			return te, nil
		}
		if err := lx.expect(",", "bad-value", "cql type"); err != nil {
			return nil, err
		}
	}
}

// parseTimes reads cqlgen:"ttl", cqlgen:"writetime" or both, separated
// by a comma.
func (f *Field) parseTimes(v Value) []*Error {
	lx := newLexer(v)
	for {
		id, err := lx.ident("bad-value", "cqlgen")
		if err != nil {
			return []*Error{err}
		}
		switch id.Name {
		case "ttl":
			f.TTL = &id
		case "writetime":
			f.Writetime = &id
		default:
			return []*Error{{Off: id.Off, Code: "bad-value", Msg: fmt.Sprintf("cqlgen: unknown option %q; a field takes ttl and writetime (cqlgen:\"ttl, writetime\"): its column's remaining time to live and write time, which GetTimes reads", id.Name)}}
		}
		if !lx.accept(",") {
			break
		}
	}
	if err := lx.end("bad-value", "cqlgen"); err != nil {
		return []*Error{err}
	}
	return nil
}
