// Package bad_udt misuses user-defined types and embedded structs.
package bad_udt

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Node holds itself, which no CQL type can.
type Node struct {
	Name string `db:"name"`
	Kids []Node `db:"kids"`
}

// HTTPAddr is http_addr by default.
type HTTPAddr struct {
	Host string `db:"host"`
}

// Other takes the name HTTPAddr already has.
//
//cqlgen:udt http_addr
type Other struct {
	Port int `db:"port"`
}

// Reserved is named with a reserved word.
//
//cqlgen:udt table
type Reserved struct {
	X int `db:"x"`
}

// Shouty has a name CQL would fold.
//
//cqlgen:udt Shouty
type Shouty struct {
	Y    int      `db:"y"`
	Ch   chan int `db:"ch"`
	Dup  int      `db:"y"`
	Hits int64    `db:"hits" cql:"counter"`
}

// Coded declares the method cqlgen writes.
type Coded struct {
	Z int `db:"z"`
}

// MarshalUDT is cqlgen's to declare.
func (Coded) MarshalUDT(string, gocql.TypeInfo) ([]byte, error) { return nil, nil }

// Labels holds a set, which cannot be compared in a key.
type Labels struct {
	Names []string            `db:"names"`
	Set   map[string]struct{} `db:"set"`
}

// Audit is embedded, wrongly, below.
type Audit struct {
	CreatedAt time.Time `db:"created_at"`
	Name      string    `db:"audit_name"`
}

// Label is not a struct.
type Label string

// Word is a directive on a type that is no struct.
//
//cqlgen:udt word
type Word string

// Thing misuses them all.
type Thing struct {
	_ cqlgen.Pattern `table:"things" pk:"id, labels"`

	ID     string          `db:"id"`
	Node   Node            `db:"node"`
	Addr   HTTPAddr        `db:"addr"`
	Other  Other           `db:"other"`
	R      Reserved        `db:"r"`
	S      Shouty          `db:"s"`
	C      Coded           `db:"c"`
	Labels Labels          `db:"labels"`
	Anon   struct{ X int } `db:"anon"`
	Loc    time.Location   `db:"loc"`
	Typed  HTTPAddr        `db:"typed" cql:"text"`
	Name   string          `db:"name"`
	*Audit
	Label
}

// Tagged embeds with a tag, and hides a promoted field.
type Tagged struct {
	_ cqlgen.Pattern `table:"tagged" pk:"id"`

	ID    string `db:"id"`
	Audit `db:"audit"`
}

// Hidden embeds a struct whose field its own field hides.
type Hidden struct {
	_ cqlgen.Pattern `table:"hidden" pk:"id"`

	ID        string `db:"id"`
	CreatedAt string `db:"created"`
	Audit
}
