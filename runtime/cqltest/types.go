package cqltest

import (
	"encoding/binary"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"
)

// cqlType is a column type: a native type or a collection.
type cqlType struct {
	kind   gocql.Type // native type, or TypeList, TypeSet, TypeMap
	key    *cqlType   // map keys
	elem   *cqlType   // list and set elements, map values
	frozen bool       // a collection stored as one value; nested ones always are
	name   string     // as CQL writes it
	info   gocql.TypeInfo
	cql    *cqldriver.Type // the runtime's, by which values are compared
}

// protoVersion is the native protocol version of every TypeInfo, as the
// runtime's clusters use (gocqlv1.NewCluster).
const protoVersion = 4

var nativeTypes = map[string]gocql.Type{
	"ascii": gocql.TypeAscii, "bigint": gocql.TypeBigInt, "blob": gocql.TypeBlob,
	"boolean": gocql.TypeBoolean, "date": gocql.TypeDate, "decimal": gocql.TypeDecimal,
	"double": gocql.TypeDouble, "duration": gocql.TypeDuration, "float": gocql.TypeFloat,
	"inet": gocql.TypeInet, "int": gocql.TypeInt, "smallint": gocql.TypeSmallInt,
	// Cassandra reports text columns as varchar in result metadata.
	"text": gocql.TypeVarchar, "varchar": gocql.TypeVarchar, "time": gocql.TypeTime,
	"timestamp": gocql.TypeTimestamp, "timeuuid": gocql.TypeTimeUUID, "tinyint": gocql.TypeTinyInt,
	"uuid": gocql.TypeUUID, "varint": gocql.TypeVarint,
}

func (t *cqlType) isCollection() bool {
	return t.kind == gocql.TypeList || t.kind == gocql.TypeSet || t.kind == gocql.TypeMap
}

// multiCell tells whether each element is a cell of its own, as in a
// non-frozen collection column.
func (t *cqlType) multiCell() bool { return t.isCollection() && !t.frozen }

// hasDuration tells whether the type is or contains duration, which has
// no order: Cassandra refuses it in keys, sets and map keys.
func (t *cqlType) hasDuration() bool {
	switch {
	case t.kind == gocql.TypeDuration:
		return true
	case t.isCollection():
		return t.elem.hasDuration() || (t.key != nil && t.key.hasDuration())
	}
	return false
}

// Where a type is parsed: at the top of a column definition, as the
// element of a non-frozen collection (where collections must be frozen),
// or within frozen<...> (where they are frozen implicitly).
type typeContext uint8

const (
	topLevel typeContext = iota
	inCollection
	inFrozen
)

// parseType reads a column type.
func parseType(p *parser, ctx typeContext) (*cqlType, error) {
	start := p.peek().pos
	name, err := p.ident("a type")
	if err != nil {
		return nil, err
	}
	t := &cqlType{}
	sub := inCollection
	if ctx == inFrozen {
		sub = inFrozen
	}
	switch name {
	case "frozen":
		if err := p.expectPunct("<"); err != nil {
			return nil, err
		}
		inner, err := parseType(p, inFrozen)
		if err != nil {
			return nil, err
		}
		if err := p.expectPunct(">"); err != nil {
			return nil, err
		}
		if !inner.isCollection() {
			return nil, fmt.Errorf("frozen<> is only allowed on collections, tuples, and user-defined types: %s", inner.name)
		}
		inner.name = "frozen<" + inner.name + ">"
		return inner, nil
	case "list", "set":
		t.kind = gocql.TypeList
		if name == "set" {
			t.kind = gocql.TypeSet
		}
		if err := p.expectPunct("<"); err != nil {
			return nil, err
		}
		if t.elem, err = parseType(p, sub); err != nil {
			return nil, err
		}
		if err := p.expectPunct(">"); err != nil {
			return nil, err
		}
	case "map":
		t.kind = gocql.TypeMap
		if err := p.expectPunct("<"); err != nil {
			return nil, err
		}
		if t.key, err = parseType(p, sub); err != nil {
			return nil, err
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		if t.elem, err = parseType(p, sub); err != nil {
			return nil, err
		}
		if err := p.expectPunct(">"); err != nil {
			return nil, err
		}
	case "counter":
		return nil, unsupportedf("counter columns")
	case "tuple", "vector":
		return nil, unsupportedf("%s types", name)
	default:
		kind, ok := nativeTypes[name]
		if !ok {
			return nil, fmt.Errorf("unknown type %s (cqltest does not support user-defined types)", name)
		}
		t.kind = kind
		t.name = name
		return t.complete(), nil
	}
	t.name = p.src[start:p.toks[p.i-1].end]
	switch ctx {
	case inCollection:
		return nil, fmt.Errorf("Non-frozen collections are not allowed inside collections: %s", t.name)
	case inFrozen:
		t.frozen = true
	}
	if t.kind == gocql.TypeSet && t.elem.hasDuration() || t.kind == gocql.TypeMap && t.key.hasDuration() {
		return nil, fmt.Errorf("Durations are not allowed inside sets or as map keys: %s", t.name)
	}
	return t.complete(), nil
}

// complete sets t's gocql type info, by which values are marshaled, and
// its cqlgen type, by which the runtime's comparator orders them, from
// its kind and those of its parts.
func (t *cqlType) complete() *cqlType {
	t.cql = &cqldriver.Type{Kind: cqldriver.TypeKind(t.kind)}
	if !t.isCollection() {
		t.info = gocql.NewNativeType(protoVersion, t.kind, "")
		t.cql.CQL = t.name
		return t
	}
	c := gocql.CollectionType{NativeType: gocql.NewNativeType(protoVersion, t.kind, ""), Elem: t.elem.info}
	t.cql.Elem = t.elem.cql
	switch t.kind {
	case gocql.TypeList:
		t.cql.CQL = "list<" + t.elem.cql.CQL + ">"
	case gocql.TypeSet:
		t.cql.CQL = "set<" + t.elem.cql.CQL + ">"
	case gocql.TypeMap:
		c.Key, t.cql.Key = t.key.info, t.key.cql
		t.cql.CQL = "map<" + t.key.cql.CQL + ", " + t.elem.cql.CQL + ">"
	}
	t.info = c
	return t
}

// fixedSizes are the sizes native values must have, as Cassandra's
// serializers check them; allowEmpty tells whether a zero-length value
// (not null: empty) is valid too.
var fixedSizes = map[gocql.Type]struct {
	size       int
	allowEmpty bool
}{
	gocql.TypeBoolean: {1, true}, gocql.TypeTinyInt: {1, false}, gocql.TypeSmallInt: {2, false},
	gocql.TypeInt: {4, true}, gocql.TypeFloat: {4, true}, gocql.TypeDate: {4, false},
	gocql.TypeBigInt: {8, true}, gocql.TypeCounter: {8, true}, gocql.TypeDouble: {8, true},
	gocql.TypeTimestamp: {8, true}, gocql.TypeTime: {8, false},
	gocql.TypeUUID: {16, true}, gocql.TypeTimeUUID: {16, true},
}

// validate checks a non-null value as Cassandra validates what it
// receives, so that raw bytes bound for the wrong type are refused.
func (t *cqlType) validate(b []byte) error {
	if t.isCollection() {
		_, err := t.elements(b)
		return err
	}
	if f, ok := fixedSizes[t.kind]; ok {
		if len(b) != f.size && !(len(b) == 0 && f.allowEmpty) {
			return fmt.Errorf("Expected %d byte %s value (%d)", f.size, t.name, len(b))
		}
	}
	switch t.kind {
	case gocql.TypeTimeUUID:
		if len(b) == 16 && b[6]>>4 != 1 {
			return fmt.Errorf("Invalid version for TimeUUID type.")
		}
	case gocql.TypeAscii:
		for _, c := range b {
			if c > 127 {
				return fmt.Errorf("Invalid byte for ascii: %d", c)
			}
		}
	case gocql.TypeVarchar:
		if !utf8.Valid(b) {
			return fmt.Errorf("String didn't validate.")
		}
	case gocql.TypeInet:
		if len(b) != 0 && len(b) != 4 && len(b) != 16 {
			return fmt.Errorf("Invalid length for inet address: %d", len(b))
		}
	case gocql.TypeDecimal:
		if len(b) != 0 && len(b) < 4 {
			return fmt.Errorf("Expected 0 or at least 4 bytes for a decimal (%d)", len(b))
		}
	}
	return nil
}

// elements splits a serialized collection (protocol v3+ layout: an int32
// count, then each element as an int32 length and its bytes; a map's keys
// and values alternate) and validates each element.
func (t *cqlType) elements(b []byte) ([][]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("Not enough bytes to read a %s", t.name)
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	per := 1
	if t.kind == gocql.TypeMap {
		per = 2
	}
	if n < 0 || n > len(b) {
		return nil, fmt.Errorf("Invalid %s size %d", t.name, n)
	}
	out := make([][]byte, 0, n*per)
	r := b[4:]
	for i := 0; i < n*per; i++ {
		if len(r) < 4 {
			return nil, fmt.Errorf("Not enough bytes to read a %s", t.name)
		}
		l := int(int32(binary.BigEndian.Uint32(r)))
		r = r[4:]
		if l < 0 {
			return nil, fmt.Errorf("null is not supported inside collections")
		}
		if l > len(r) {
			return nil, fmt.Errorf("Not enough bytes to read a %s", t.name)
		}
		sub := t.elem
		if per == 2 && i%2 == 0 {
			sub = t.key
		}
		if err := sub.validate(r[:l]); err != nil {
			return nil, err
		}
		out = append(out, r[:l])
		r = r[l:]
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("Unexpected extraneous bytes after %s value", t.name)
	}
	return out, nil
}

// serialize builds a collection value from its elements (alternating keys
// and values for a map).
func serialize(elems [][]byte, per int) []byte {
	size := 4
	for _, e := range elems {
		size += 4 + len(e)
	}
	b := make([]byte, 0, size)
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)/per))
	for _, e := range elems {
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

// normalize puts a valid value in the form Cassandra stores: the elements
// of a set sorted and without duplicates, a map's entries sorted by key
// with the last value of a repeated key, recursively.
func (t *cqlType) normalize(b []byte) []byte {
	if !t.isCollection() {
		return b
	}
	elems, err := t.elements(b)
	if err != nil {
		return b
	}
	switch t.kind {
	case gocql.TypeList:
		for i, e := range elems {
			elems[i] = t.elem.normalize(e)
		}
		return serialize(elems, 1)
	case gocql.TypeSet:
		for i, e := range elems {
			elems[i] = t.elem.normalize(e)
		}
		sort.SliceStable(elems, func(i, j int) bool { return compareValues(t.elem, elems[i], elems[j]) < 0 })
		out := elems[:0]
		for i, e := range elems {
			if i == 0 || compareValues(t.elem, elems[i-1], e) != 0 {
				out = append(out, e)
			}
		}
		return serialize(out, 1)
	}
	type entry struct{ k, v []byte }
	entries := make([]entry, 0, len(elems)/2)
	for i := 0; i < len(elems); i += 2 {
		entries = append(entries, entry{t.key.normalize(elems[i]), t.elem.normalize(elems[i+1])})
	}
	sort.SliceStable(entries, func(i, j int) bool { return compareValues(t.key, entries[i].k, entries[j].k) < 0 })
	var out [][]byte
	for i, e := range entries {
		if i+1 < len(entries) && compareValues(t.key, e.k, entries[i+1].k) == 0 {
			continue // a later entry of the same key replaces it
		}
		out = append(out, e.k, e.v)
	}
	return serialize(out, 2)
}
