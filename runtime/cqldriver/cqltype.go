package cqldriver

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// TypeKind is the kind of a CQL type, by its code in the native protocol,
// which both gocql drivers use for their own type constants too.
type TypeKind uint16

// The kinds of CQL types.
const (
	TypeCustom    TypeKind = 0x0000 // a custom type: vectors
	TypeAscii     TypeKind = 0x0001
	TypeBigInt    TypeKind = 0x0002
	TypeBlob      TypeKind = 0x0003
	TypeBoolean   TypeKind = 0x0004
	TypeCounter   TypeKind = 0x0005
	TypeDecimal   TypeKind = 0x0006
	TypeDouble    TypeKind = 0x0007
	TypeFloat     TypeKind = 0x0008
	TypeInt       TypeKind = 0x0009
	TypeText      TypeKind = 0x000A
	TypeTimestamp TypeKind = 0x000B
	TypeUUID      TypeKind = 0x000C
	TypeVarchar   TypeKind = 0x000D
	TypeVarint    TypeKind = 0x000E
	TypeTimeUUID  TypeKind = 0x000F
	TypeInet      TypeKind = 0x0010
	TypeDate      TypeKind = 0x0011
	TypeTime      TypeKind = 0x0012
	TypeSmallInt  TypeKind = 0x0013
	TypeTinyInt   TypeKind = 0x0014
	TypeDuration  TypeKind = 0x0015
	TypeList      TypeKind = 0x0020
	TypeMap       TypeKind = 0x0021
	TypeSet       TypeKind = 0x0022
	TypeUDT       TypeKind = 0x0030
	TypeTuple     TypeKind = 0x0031
)

// Type is a CQL type as the runtime knows it, without a driver: what it
// needs to encode keys (cursors, pending records, claims) and to compare
// values in Cassandra's order. Driver adapters translate it to their own.
type Type struct {
	Kind TypeKind
	// Name is a user-defined type's name, or a custom type's: "vector"
	// for vector<float, n>.
	Name string
	// Elem is the element type of a list, set, map (its values) or
	// vector; Key is a map's key type.
	Elem, Key *Type
	// Fields are a user-defined type's fields, in order.
	Fields []TypeField
	// Dimensions is a vector's length.
	Dimensions int
	// CQL is the type as written, without frozen<>, in the form
	// ParseType reads (udt<name, field type, ...> for user-defined types).
	CQL string
}

// TypeField is one field of a user-defined type.
type TypeField struct {
	Name string
	Type *Type
}

// IsVector reports whether t is vector<…, n>.
func (t *Type) IsVector() bool { return t.Kind == TypeCustom && t.Name == "vector" }

var nativeKinds = map[string]TypeKind{
	"ascii": TypeAscii, "bigint": TypeBigInt, "blob": TypeBlob,
	"boolean": TypeBoolean, "counter": TypeCounter, "date": TypeDate,
	"decimal": TypeDecimal, "double": TypeDouble, "duration": TypeDuration,
	"float": TypeFloat, "inet": TypeInet, "int": TypeInt,
	"smallint": TypeSmallInt, "text": TypeVarchar, "time": TypeTime,
	"timestamp": TypeTimestamp, "timeuuid": TypeTimeUUID, "tinyint": TypeTinyInt,
	"uuid": TypeUUID, "varchar": TypeVarchar, "varint": TypeVarint,
}

var parsedTypes sync.Map // string → *Type

// ParseType reads a CQL type as generated code writes it: a native type;
// a list, set or map of types, frozen or not; vector<float, n>; or a
// user-defined type spelled out whole, udt<name, field type, ...>, since
// there is no schema to look it up in. Types are cached: the same string
// gives the same *Type, which callers must not modify.
func ParseType(cql string) (*Type, error) {
	if t, ok := parsedTypes.Load(cql); ok {
		return t.(*Type), nil
	}
	t, rest, err := parseType(strings.TrimSpace(cql))
	if err == nil && strings.TrimSpace(rest) != "" {
		err = fmt.Errorf("cqlgen: unexpected %q after type %q", rest, cql)
	}
	if err != nil {
		return nil, err
	}
	parsedTypes.Store(cql, t)
	return t, nil
}

func parseType(s string) (*Type, string, error) {
	name := s
	if i := strings.IndexAny(s, "<,>"); i >= 0 {
		name = s[:i]
	}
	rest := s[len(name):]
	name = strings.TrimSpace(name)
	if k, ok := nativeKinds[name]; ok {
		return &Type{Kind: k, CQL: name}, rest, nil
	}
	params := func(n int) ([]*Type, string, error) {
		if !strings.HasPrefix(rest, "<") {
			return nil, "", fmt.Errorf("cqlgen: %s without parameters", name)
		}
		r := rest[1:]
		var ps []*Type
		for i := range n {
			p, after, err := parseType(strings.TrimSpace(r))
			if err != nil {
				return nil, "", err
			}
			after = strings.TrimSpace(after)
			sep := ","
			if i == n-1 {
				sep = ">"
			}
			if !strings.HasPrefix(after, sep) {
				return nil, "", fmt.Errorf("cqlgen: expected %q in type %s", sep, s)
			}
			ps, r = append(ps, p), after[1:]
		}
		return ps, r, nil
	}
	switch name {
	case "udt":
		return parseUDT(s, rest)
	case "vector":
		// vector<float, N>
		end := strings.IndexByte(rest, '>')
		if !strings.HasPrefix(rest, "<") || end < 0 {
			return nil, "", fmt.Errorf("cqlgen: malformed vector type %q", s)
		}
		elem, dim, ok := strings.Cut(rest[1:end], ",")
		n, err := strconv.Atoi(strings.TrimSpace(dim))
		if !ok || err != nil || n <= 0 {
			return nil, "", fmt.Errorf("cqlgen: malformed vector type %q", s)
		}
		et, after, err := parseType(strings.TrimSpace(elem))
		if err != nil || strings.TrimSpace(after) != "" {
			return nil, "", fmt.Errorf("cqlgen: malformed vector type %q", s)
		}
		return &Type{Kind: TypeCustom, Name: "vector", Elem: et, Dimensions: n, CQL: "vector<" + et.CQL + ", " + strconv.Itoa(n) + ">"}, rest[end+1:], nil
	case "frozen":
		ps, r, err := params(1)
		if err != nil {
			return nil, "", err
		}
		return ps[0], r, nil
	case "list", "set":
		ps, r, err := params(1)
		if err != nil {
			return nil, "", err
		}
		kind := TypeList
		if name == "set" {
			kind = TypeSet
		}
		return &Type{Kind: kind, Elem: ps[0], CQL: name + "<" + ps[0].CQL + ">"}, r, nil
	case "map":
		ps, r, err := params(2)
		if err != nil {
			return nil, "", err
		}
		return &Type{Kind: TypeMap, Key: ps[0], Elem: ps[1], CQL: "map<" + ps[0].CQL + ", " + ps[1].CQL + ">"}, r, nil
	}
	return nil, "", fmt.Errorf("cqlgen: unsupported CQL type %q", s)
}

// parseUDT reads the rest of udt<name, field type, ...>, which s is.
func parseUDT(s, rest string) (*Type, string, error) {
	bad := fmt.Errorf("cqlgen: malformed user-defined type %q", s)
	r, ok := strings.CutPrefix(rest, "<")
	if !ok {
		return nil, "", bad
	}
	i := strings.IndexAny(r, ",>")
	if i < 0 {
		return nil, "", bad
	}
	u := &Type{Kind: TypeUDT, Name: strings.TrimSpace(r[:i])}
	cql := "udt<" + u.Name
	for r[i] == ',' {
		r = strings.TrimSpace(r[i+1:])
		field, after, ok := strings.Cut(r, " ")
		if !ok || field == "" {
			return nil, "", bad
		}
		t, after, err := parseType(strings.TrimSpace(after))
		if err != nil {
			return nil, "", err
		}
		u.Fields = append(u.Fields, TypeField{Name: field, Type: t})
		cql += ", " + field + " " + t.CQL
		r = strings.TrimSpace(after)
		if r == "" || (r[0] != ',' && r[0] != '>') {
			return nil, "", bad
		}
		i = 0
	}
	u.CQL = cql + ">"
	return u, r[i+1:], nil
}
