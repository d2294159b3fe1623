package importer

import (
	"fmt"
	"strings"
)

// typeNode is a CQL type as a schema writes it: a name and, for
// collections, frozen, vectors and tuples, its parameters.
type typeNode struct {
	name   string
	params []*typeNode
}

// parseType reads a type such as map<text, frozen<list<int>>>.
func parseType(s string) (*typeNode, error) {
	p := &typeParser{s: s}
	n, err := p.node()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i < len(p.s) {
		return nil, fmt.Errorf("type %s: unexpected %q", s, p.s[p.i:])
	}
	return n, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) skip() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *typeParser) node() (*typeNode, error) {
	p.skip()
	j := p.i
	for j < len(p.s) && !strings.ContainsRune("<>, ", rune(p.s[j])) {
		j++
	}
	if j == p.i {
		return nil, fmt.Errorf("type %s: a type name is missing", p.s)
	}
	n := &typeNode{name: strings.ToLower(p.s[p.i:j])}
	p.i = j
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == '<' {
		p.i++
		for {
			c, err := p.node()
			if err != nil {
				return nil, err
			}
			n.params = append(n.params, c)
			p.skip()
			if p.i >= len(p.s) {
				return nil, fmt.Errorf("type %s: missing >", p.s)
			}
			if p.s[p.i] == '>' {
				p.i++
				break
			}
			if p.s[p.i] != ',' {
				return nil, fmt.Errorf("type %s: unexpected %q", p.s, p.s[p.i])
			}
			p.i++
		}
	}
	return n, nil
}

// String writes the type as Cassandra does: map<text, frozen<list<int>>>.
func (n *typeNode) String() string {
	if len(n.params) == 0 {
		return n.name
	}
	var ps []string
	for _, c := range n.params {
		ps = append(ps, c.String())
	}
	return n.name + "<" + strings.Join(ps, ", ") + ">"
}

func (n *typeNode) isCollection() bool {
	return n.name == "list" || n.name == "set" || n.name == "map"
}

// scalars maps each CQL scalar type to the Go type cqlgen reads it into,
// and whether cqlgen needs the CQL type named (cql:"...") because the Go
// type maps to another by default.
var scalars = map[string]struct {
	goType   string
	override bool
	imp      string // the import the Go type needs
}{
	"text":      {"string", false, ""},
	"varchar":   {"string", true, ""},
	"ascii":     {"string", true, ""},
	"boolean":   {"bool", false, ""},
	"tinyint":   {"int8", false, ""},
	"smallint":  {"int16", false, ""},
	"int":       {"int32", false, ""},
	"bigint":    {"int64", false, ""},
	"varint":    {"*big.Int", false, "math/big"},
	"counter":   {"int64", true, ""},
	"float":     {"float32", false, ""},
	"double":    {"float64", false, ""},
	"decimal":   {"*inf.Dec", false, "gopkg.in/inf.v0"},
	"blob":      {"[]byte", false, ""},
	"timestamp": {"time.Time", false, "time"},
	"date":      {"time.Time", true, "time"},
	"time":      {"time.Duration", true, "time"},
	"uuid":      {"gocql.UUID", false, "github.com/gocql/gocql"},
	"timeuuid":  {"gocql.UUID", true, "github.com/gocql/gocql"},
	"duration":  {"gocql.Duration", false, "github.com/gocql/gocql"},
	"inet":      {"net.IP", false, "net"},
}

// goType is the Go type of a CQL type and the cql:"..." override cqlgen
// needs to write that CQL type from it ("" when the Go type's own mapping
// is the type).
type goType struct {
	Go       string
	Override string
	imports  []string
	udts     []string // the user-defined types it holds
}

// errType is a type no declaration can reproduce, and why.
type errType struct{ msg string }

func (e *errType) Error() string { return e.msg }

func typeErr(format string, args ...any) error { return &errType{fmt.Sprintf(format, args...)} }

// mapper turns CQL types into Go types; udts names the user-defined types
// of the schema and their Go names.
type mapper struct {
	udts map[string]string
}

// column maps a column's type. nonFrozenUDT is set when the column is a
// user-defined type Cassandra stores unfrozen, which cqlgen always
// freezes.
func (m *mapper) column(cql string) (gt goType, nonFrozenUDT bool, err error) {
	n, err := parseType(cql)
	if err != nil {
		return goType{}, false, err
	}
	if _, ok := m.udts[n.name]; ok {
		nonFrozenUDT = true
	}
	g, imps, udts, err := m.goOf(n, 0)
	if err != nil {
		return goType{}, false, err
	}
	gt = goType{Go: g, imports: imps, udts: udts}
	expr, needed, err := m.override(n, 0)
	if err != nil {
		return goType{}, false, err
	}
	if needed {
		gt.Override = expr
	}
	return gt, nonFrozenUDT, nil
}

// goOf is the Go type of n.
func (m *mapper) goOf(n *typeNode, depth int) (string, []string, []string, error) {
	if goName, ok := m.udts[n.name]; ok {
		return goName, nil, []string{n.name}, nil
	}
	if s, ok := scalars[n.name]; ok && len(n.params) == 0 {
		if depth > 0 && n.name == "counter" {
			return "", nil, nil, typeErr("a collection of counters")
		}
		var imps []string
		if s.imp != "" {
			imps = []string{s.imp}
		}
		return s.goType, imps, nil, nil
	}
	switch n.name {
	case "frozen":
		if len(n.params) != 1 {
			return "", nil, nil, typeErr("type %s", n)
		}
		return m.goOf(n.params[0], depth)
	case "list", "set":
		if len(n.params) != 1 {
			return "", nil, nil, typeErr("type %s", n)
		}
		g, imps, udts, err := m.goOf(n.params[0], depth+1)
		if err != nil {
			return "", nil, nil, err
		}
		return "[]" + g, imps, udts, nil
	case "map":
		if len(n.params) != 2 {
			return "", nil, nil, typeErr("type %s", n)
		}
		k := n.params[0]
		if k.name == "frozen" && len(k.params) == 1 {
			k = k.params[0]
		}
		if k.isCollection() || k.name == "blob" || k.name == "inet" || m.udts[k.name] != "" || k.name == "varint" || k.name == "decimal" {
			return "", nil, nil, typeErr("a map keyed by %s: no Go map key reads it (a Go map key must be comparable by value)", n.params[0])
		}
		kg, kimps, _, err := m.goOf(n.params[0], depth+1)
		if err != nil {
			return "", nil, nil, err
		}
		vg, vimps, udts, err := m.goOf(n.params[1], depth+1)
		if err != nil {
			return "", nil, nil, err
		}
		return "map[" + kg + "]" + vg, append(kimps, vimps...), udts, nil
	case "vector":
		if len(n.params) != 2 || n.params[0].name != "float" || depth > 0 {
			return "", nil, nil, typeErr("type %s: cqlgen stores vectors of floats, as columns of their own", n)
		}
		return "[]float32", nil, nil, nil
	case "tuple":
		return "", nil, nil, typeErr("type %s: cqlgen has no tuples (a user-defined type holds the same values, with names)", n)
	}
	return "", nil, nil, typeErr("type %s has no Go mapping in cqlgen", n)
}

// override is the cql:"..." expression that makes cqlgen write n from
// the Go type goOf gives, and whether one is needed at all.
func (m *mapper) override(n *typeNode, depth int) (string, bool, error) {
	if _, ok := m.udts[n.name]; ok {
		return "", false, nil
	}
	if s, ok := scalars[n.name]; ok && len(n.params) == 0 {
		return n.name, s.override, nil
	}
	switch n.name {
	case "frozen":
		inner := n.params[0]
		if _, ok := m.udts[inner.name]; ok {
			return "", false, nil // a user-defined type is always frozen
		}
		if depth == 0 && inner.name == "list" {
			// A slice column is frozen<list<T>> by default: name it only
			// when its elements need naming.
			if _, needed, err := m.override(inner, 1); err != nil || !needed {
				return "", false, err
			}
		}
		_, needed, err := m.override(inner, depth)
		if err != nil {
			return "", false, err
		}
		if depth > 0 {
			// Collections inside collections are frozen anyway.
			if !needed {
				return "", false, nil
			}
			full, err := m.spell(inner)
			if err != nil {
				return "", false, err
			}
			return "frozen<" + full + ">", true, nil
		}
		full, err := m.spell(inner)
		if err != nil {
			return "", false, err
		}
		return "frozen<" + full + ">", true, nil
	case "vector":
		return n.String(), true, nil
	case "list", "set", "map":
		pneeded := false
		for _, c := range n.params {
			_, needed, err := m.override(c, depth+1)
			if err != nil {
				return "", false, err
			}
			pneeded = pneeded || needed
		}
		switch {
		case !pneeded && n.name == "list" && depth == 0:
			// A deployed list<T> column: a slice would be frozen<list<T>>
			// by default, so the tag keeps the column as it is.
			if full, err := m.spell(n); err == nil {
				return full, true, nil
			}
			return "list", true, nil
		case !pneeded && n.name != "set":
			return "", false, nil
		case !pneeded:
			// A set of what a list would hold: name it whole, or, when it
			// holds a user-defined type (which a cql tag cannot name),
			// the kind alone.
			if full, err := m.spell(n); err == nil {
				return full, true, nil
			}
			return "set", true, nil
		}
		full, err := m.spell(n)
		if err != nil {
			return "", false, err
		}
		return full, true, nil
	}
	return "", false, typeErr("type %s has no Go mapping in cqlgen", n)
}

// spell writes n in full for an override; a user-defined type inside
// cannot be named there.
func (m *mapper) spell(n *typeNode) (string, error) {
	if _, ok := m.udts[n.name]; ok {
		return "", typeErr("a collection of the user-defined type %s whose element types cqlgen would have to be told, which it cannot be for a user-defined type", n.name)
	}
	if len(n.params) == 0 {
		return n.name, nil
	}
	var ps []string
	for _, c := range n.params {
		s, err := m.spell(c)
		if err != nil {
			return "", err
		}
		ps = append(ps, s)
	}
	return n.name + "<" + strings.Join(ps, ", ") + ">", nil
}
