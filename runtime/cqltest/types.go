package cqltest

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// cqlType is a column type: a native type, a collection or a
// user-defined type.
type cqlType struct {
	kind   cqldriver.TypeKind // native type, TypeList, TypeSet, TypeMap or TypeUDT
	key    *cqlType           // map keys
	elem   *cqlType           // list and set elements, map values
	fields []udtField         // a user-defined type's fields, in order
	udt    string             // a user-defined type's name
	dims   int                // a vector's dimensions
	// multiField marks a user-defined type with a collection field not
	// declared frozen, which only a frozen use of the type may have.
	multiField bool
	frozen     bool   // a collection or UDT stored as one value; nested ones always are
	name       string // as CQL writes it
	// info is the type as the runtime's codecs take it (cqldriver.Marshal),
	// by which values are marshaled with whichever driver adapter the
	// program links.
	info *cqldriver.Type
}

// udtField is one field of a user-defined type.
type udtField struct {
	name string
	typ  *cqlType
}

var nativeTypes = map[string]cqldriver.TypeKind{
	"ascii": cqldriver.TypeAscii, "bigint": cqldriver.TypeBigInt, "blob": cqldriver.TypeBlob,
	"boolean": cqldriver.TypeBoolean, "counter": cqldriver.TypeCounter, "date": cqldriver.TypeDate,
	"decimal": cqldriver.TypeDecimal, "double": cqldriver.TypeDouble, "duration": cqldriver.TypeDuration,
	"float": cqldriver.TypeFloat, "inet": cqldriver.TypeInet, "int": cqldriver.TypeInt,
	"smallint": cqldriver.TypeSmallInt,
	// Cassandra reports text columns as varchar in result metadata.
	"text": cqldriver.TypeVarchar, "varchar": cqldriver.TypeVarchar, "time": cqldriver.TypeTime,
	"timestamp": cqldriver.TypeTimestamp, "timeuuid": cqldriver.TypeTimeUUID, "tinyint": cqldriver.TypeTinyInt,
	"uuid": cqldriver.TypeUUID, "varint": cqldriver.TypeVarint,
}

func (t *cqlType) isCollection() bool {
	return t.kind == cqldriver.TypeList || t.kind == cqldriver.TypeSet || t.kind == cqldriver.TypeMap
}

func (t *cqlType) isUDT() bool { return t.kind == cqldriver.TypeUDT }

func (t *cqlType) isVector() bool { return t.kind == cqldriver.TypeCustom }

func (t *cqlType) isCounter() bool { return t.kind == cqldriver.TypeCounter }

// multiCell tells whether each element is a cell of its own, as in a
// non-frozen collection column. A non-frozen user-defined type is kept
// as one cell here (see the package doc).
func (t *cqlType) multiCell() bool { return t.isCollection() && !t.frozen }

// hasDuration tells whether the type is or contains duration, which has
// no order: Cassandra refuses it in keys, sets and map keys.
func (t *cqlType) hasDuration() bool {
	return t.contains(func(t *cqlType) bool { return t.kind == cqldriver.TypeDuration })
}

// hasCounter tells whether the type is or contains counter, which only a
// column of a counter table may be.
func (t *cqlType) hasCounter() bool { return t.contains((*cqlType).isCounter) }

// contains tells whether the type, or a type within it (an element, a
// key, a field), is one is reports true for.
func (t *cqlType) contains(is func(*cqlType) bool) bool {
	switch {
	case is(t):
		return true
	case t.isCollection():
		return t.elem.contains(is) || (t.key != nil && t.key.contains(is))
	case t.isUDT():
		for _, f := range t.fields {
			if f.typ.contains(is) {
				return true
			}
		}
	}
	return false
}

// Where a type is parsed: at the top of a column definition, as the
// element of a non-frozen collection (where collections must be frozen),
// within frozen<...> (where they are frozen implicitly), or as a field
// of a user-defined type.
type typeContext uint8

const (
	topLevel typeContext = iota
	inCollection
	inFrozen
	inUDT
)

// typeArgs reads the n types of <T, ...> after a type's name, each
// parsed in ctx.
func typeArgs(p *parser, ctx typeContext, udts map[string]*cqlType, n int) ([]*cqlType, error) {
	args := make([]*cqlType, n)
	for i := range args {
		sep := ","
		if i == 0 {
			sep = "<"
		}
		if err := p.expectPunct(sep); err != nil {
			return nil, err
		}
		var err error
		if args[i], err = parseType(p, ctx, udts); err != nil {
			return nil, err
		}
	}
	if err := p.expectPunct(">"); err != nil {
		return nil, err
	}
	return args, nil
}

// parseType reads a column type; udts are the user-defined types the
// schema created so far.
func parseType(p *parser, ctx typeContext, udts map[string]*cqlType) (*cqlType, error) {
	start := p.peek().pos
	name, err := p.ident("a type")
	if err != nil {
		return nil, err
	}
	t := &cqlType{}
	sub := inCollection
	if ctx == inFrozen || ctx == inUDT {
		sub = inFrozen
	}
	switch name {
	case "frozen":
		args, err := typeArgs(p, inFrozen, udts, 1)
		if err != nil {
			return nil, err
		}
		inner := args[0]
		if !inner.isCollection() && !inner.isUDT() {
			return nil, fmt.Errorf("frozen<> is only allowed on collections, tuples, and user-defined types: %s", inner.name)
		}
		inner.frozen = true
		inner.name = "frozen<" + inner.name + ">"
		return inner, nil
	case "list", "set":
		t.kind = cqldriver.TypeList
		if name == "set" {
			t.kind = cqldriver.TypeSet
		}
		args, err := typeArgs(p, sub, udts, 1)
		if err != nil {
			return nil, err
		}
		t.elem = args[0]
	case "map":
		t.kind = cqldriver.TypeMap
		args, err := typeArgs(p, sub, udts, 2)
		if err != nil {
			return nil, err
		}
		t.key, t.elem = args[0], args[1]
	case "counter":
		if ctx != topLevel {
			return nil, fmt.Errorf("Counters are not allowed inside collections: %s", p.src[start:p.toks[p.i-1].end])
		}
		t.kind, t.name = cqldriver.TypeCounter, name
		return t.complete(), nil
	case "vector":
		// vector<float, n>: n floats, stored as one value.
		if err := p.expectPunct("<"); err != nil {
			return nil, err
		}
		if t.elem, err = parseType(p, inFrozen, udts); err != nil {
			return nil, err
		}
		if t.elem.kind != cqldriver.TypeFloat {
			return nil, unsupportedf("vectors of %s (only vector<float, n>)", t.elem.name)
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
		n := p.next()
		dims, err := strconv.Atoi(n.text)
		if n.kind != tNumber || err != nil || dims <= 0 {
			return nil, fmt.Errorf("vectors must have a dimension greater than 0: %s", n.text)
		}
		if err := p.expectPunct(">"); err != nil {
			return nil, err
		}
		t.kind, t.dims, t.frozen = cqldriver.TypeCustom, dims, true
		t.name = p.src[start:p.toks[p.i-1].end]
		return t.complete(), nil
	case "tuple":
		return nil, unsupportedf("%s types", name)
	default:
		if kind, ok := nativeTypes[name]; ok {
			t.kind = kind
			t.name = name
			return t.complete(), nil
		}
		u, ok := udts[name]
		if !ok {
			return nil, fmt.Errorf("Unknown type %s", name)
		}
		// A copy: whether it is frozen belongs to where it is used.
		c := *u
		switch ctx {
		case topLevel:
			if c.multiField {
				return nil, fmt.Errorf("Non-frozen UDTs with nested non-frozen collections are not supported")
			}
		case inCollection:
			return nil, fmt.Errorf("Non-frozen UDTs are not allowed inside collections: %s", name)
		case inFrozen, inUDT:
			c.frozen = true
		}
		return &c, nil
	}
	t.name = p.src[start:p.toks[p.i-1].end]
	switch ctx {
	case inCollection:
		return nil, fmt.Errorf("Non-frozen collections are not allowed inside collections: %s", t.name)
	case inFrozen, inUDT:
		t.frozen = true
	}
	if t.kind == cqldriver.TypeSet && t.elem.hasDuration() || t.kind == cqldriver.TypeMap && t.key.hasDuration() {
		return nil, fmt.Errorf("Durations are not allowed inside sets or as map keys: %s", t.name)
	}
	return t.complete(), nil
}

// complete sets t's cqldriver type, by which values are marshaled, from
// its kind and those of its parts.
func (t *cqlType) complete() *cqlType {
	switch {
	case t.isCollection():
		i := &cqldriver.Type{Kind: t.kind, Elem: t.elem.info}
		kind := "list"
		switch t.kind {
		case cqldriver.TypeSet:
			kind = "set"
		case cqldriver.TypeMap:
			kind = "map"
			i.Key = t.key.info
		}
		if i.Key != nil {
			i.CQL = kind + "<" + i.Key.CQL + ", " + i.Elem.CQL + ">"
		} else {
			i.CQL = kind + "<" + i.Elem.CQL + ">"
		}
		t.info = i
	case t.isVector():
		t.info = &cqldriver.Type{Kind: cqldriver.TypeCustom, Name: "vector", Elem: t.elem.info, Dimensions: t.dims,
			CQL: "vector<" + t.elem.info.CQL + ", " + strconv.Itoa(t.dims) + ">"}
	case t.isUDT():
		i := &cqldriver.Type{Kind: cqldriver.TypeUDT, Name: t.udt}
		cql := "udt<" + t.udt
		for _, f := range t.fields {
			i.Fields = append(i.Fields, cqldriver.TypeField{Name: f.name, Type: f.typ.info})
			cql += ", " + f.name + " " + f.typ.info.CQL
		}
		i.CQL = cql + ">"
		t.info = i
	default:
		name := t.name
		if t.kind == cqldriver.TypeVarchar {
			name = "text"
		}
		t.info = &cqldriver.Type{Kind: t.kind, CQL: name}
	}
	return t
}

// parseCreateType reads the rest of CREATE TYPE, after its keywords:
// [IF NOT EXISTS] name (field type, ...).
func parseCreateType(p *parser, udts map[string]*cqlType) (*cqlType, bool, error) {
	ifNotExists := p.keywords("if", "not", "exists")
	name, err := p.name("a type name")
	if err != nil {
		return nil, false, err
	}
	if _, ok := nativeTypes[name]; ok || name == "frozen" || name == "list" || name == "set" || name == "map" {
		return nil, false, fmt.Errorf("%s is a reserved type name", name)
	}
	t := &cqlType{kind: cqldriver.TypeUDT, udt: name, name: name}
	if err := p.expectPunct("("); err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	for {
		fname, err := p.ident("a field name")
		if err != nil {
			return nil, false, err
		}
		ft, err := parseType(p, inUDT, udts)
		if err != nil {
			return nil, false, err
		}
		if ft.isCounter() {
			return nil, false, fmt.Errorf("A user type cannot contain counters")
		}
		declaredFrozen := strings.HasPrefix(ft.name, "frozen<")
		switch {
		case ft.isUDT() && !declaredFrozen:
			return nil, false, fmt.Errorf("A user type cannot contain non-frozen UDTs")
		case ft.isCollection() && !declaredFrozen:
			t.multiField = true
		}
		if seen[fname] {
			return nil, false, fmt.Errorf("Duplicate field name %s in type %s", fname, name)
		}
		seen[fname] = true
		t.fields = append(t.fields, udtField{fname, ft})
		if p.punct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return nil, false, err
		}
	}
	return t.complete(), ifNotExists, nil
}

// fixedSizes are the sizes native values must have, as Cassandra's
// serializers check them; allowEmpty tells whether a zero-length value
// (not null: empty) is valid too.
var fixedSizes = map[cqldriver.TypeKind]struct {
	size       int
	allowEmpty bool
}{
	cqldriver.TypeBoolean: {1, true}, cqldriver.TypeTinyInt: {1, false}, cqldriver.TypeSmallInt: {2, false},
	cqldriver.TypeInt: {4, true}, cqldriver.TypeFloat: {4, true}, cqldriver.TypeDate: {4, false},
	cqldriver.TypeBigInt: {8, true}, cqldriver.TypeCounter: {8, true}, cqldriver.TypeDouble: {8, true},
	cqldriver.TypeTimestamp: {8, true}, cqldriver.TypeTime: {8, false},
	cqldriver.TypeUUID: {16, true}, cqldriver.TypeTimeUUID: {16, true},
}

// validate checks a non-null value as Cassandra validates what it
// receives, so that raw bytes bound for the wrong type are refused.
func (t *cqlType) validate(b []byte) error {
	if t.isCollection() {
		_, err := t.elements(b)
		return err
	}
	if t.isUDT() {
		_, err := t.udtValues(b)
		return err
	}
	if t.isVector() {
		if len(b) != 4*t.dims {
			return fmt.Errorf("Expected %d bytes for a %s, got %d", 4*t.dims, t.name, len(b))
		}
		return nil
	}
	if f, ok := fixedSizes[t.kind]; ok {
		if len(b) != f.size && !(len(b) == 0 && f.allowEmpty) {
			return fmt.Errorf("Expected %d byte %s value (%d)", f.size, t.name, len(b))
		}
	}
	switch t.kind {
	case cqldriver.TypeTimeUUID:
		if len(b) == 16 && b[6]>>4 != 1 {
			return fmt.Errorf("Invalid version for TimeUUID type.")
		}
	case cqldriver.TypeAscii:
		for _, c := range b {
			if c > 127 {
				return fmt.Errorf("Invalid byte for ascii: %d", c)
			}
		}
	case cqldriver.TypeVarchar:
		if !utf8.Valid(b) {
			return fmt.Errorf("String didn't validate.")
		}
	case cqldriver.TypeInet:
		if len(b) != 0 && len(b) != 4 && len(b) != 16 {
			return fmt.Errorf("Invalid length for inet address: %d", len(b))
		}
	case cqldriver.TypeDecimal:
		if len(b) != 0 && len(b) < 4 {
			return fmt.Errorf("Expected 0 or at least 4 bytes for a decimal (%d)", len(b))
		}
	case cqldriver.TypeDuration:
		if len(b) == 0 {
			return nil
		}
		d, err := decode(t, b)
		if err != nil {
			return err
		}
		// As Cassandra's DurationSerializer: a duration is negative or
		// positive as a whole.
		v := d.(Duration)
		if (v.Months < 0 || v.Days < 0 || v.Nanoseconds < 0) && (v.Months > 0 || v.Days > 0 || v.Nanoseconds > 0) {
			return fmt.Errorf("The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", v.Months, v.Days, v.Nanoseconds)
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
	if t.kind == cqldriver.TypeMap {
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

// udtValues splits a serialized user-defined type value (each field in
// order as an int32 length and its bytes, -1 for null; trailing fields
// may be left out, which are null) and validates each field. The result
// has one entry per field of the type, nil for a null.
func (t *cqlType) udtValues(b []byte) ([][]byte, error) {
	out := make([][]byte, len(t.fields))
	r := b
	for i := range t.fields {
		if len(r) == 0 {
			break
		}
		if len(r) < 4 {
			return nil, fmt.Errorf("Not enough bytes to read field %s of %s", t.fields[i].name, t.udt)
		}
		l := int(int32(binary.BigEndian.Uint32(r)))
		r = r[4:]
		if l < 0 {
			continue
		}
		if l > len(r) {
			return nil, fmt.Errorf("Not enough bytes to read field %s of %s", t.fields[i].name, t.udt)
		}
		if err := t.fields[i].typ.validate(r[:l]); err != nil {
			return nil, err
		}
		out[i] = r[:l:l]
		r = r[l:]
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("Invalid remaining data after end of UDT value")
	}
	return out, nil
}

// normalize puts a valid value in the form Cassandra stores: the elements
// of a set sorted and without duplicates, a map's entries sorted by key
// with the last value of a repeated key, recursively. A user-defined
// type's value is kept as received, collections inside it included: a
// Cassandra 5.0 node was seen to return a set inside a frozen UDT in the
// order sent, duplicates and all.
func (t *cqlType) normalize(b []byte) []byte {
	if !t.isCollection() {
		return b
	}
	elems, err := t.elements(b)
	if err != nil {
		return b
	}
	switch t.kind {
	case cqldriver.TypeList:
		for i, e := range elems {
			elems[i] = t.elem.normalize(e)
		}
		return serialize(elems, 1)
	case cqldriver.TypeSet:
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
