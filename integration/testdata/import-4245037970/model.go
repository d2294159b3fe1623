// Package model holds the cqlgen declarations that cqlgen import made from gen/testdata/golden/types/schema.cql:
// an entity a table, or one entity for tables that hold the same rows under
// different keys. It is yours to edit: name the entities, add doc, size
// hints and read method names, then run cqlgen generate. A comment that
// starts with "import:" says where a declaration does not reproduce its
// table exactly.
package model

import (
	"math/big"
	"net"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/gocql/gocql"
	inf "gopkg.in/inf.v0"
)

// Everything is a row of table everything (gen/testdata/golden/types/schema.cql:6:1).
type Everything struct {
	_ cqlgen.Pattern `table:"everything" pk:"id" ck:"tags_key, day" comment:"Everything rows by id, ordered by tags_key ascending, then day ascending"`

	ID        gocql.UUID                `db:"id"`
	TagsKey   []string                  `db:"tags_key" cql:"frozen<list<text>>"`
	Day       time.Time                 `db:"day" cql:"date"`
	Event     gocql.UUID                `db:"event" cql:"timeuuid"`
	Raw16     gocql.UUID                `db:"raw16"`
	S         string                    `db:"s"`
	A         string                    `db:"a" cql:"ascii"`
	G         string                    `db:"g"`
	B         bool                      `db:"b"`
	I         int64                     `db:"i"`
	I8        int8                      `db:"i8"`
	I16       int16                     `db:"i16"`
	I32       int32                     `db:"i32"`
	I64       int64                     `db:"i64"`
	U8        int16                     `db:"u8"`
	U16       int32                     `db:"u16"`
	U32       int64                     `db:"u32"`
	U64       *big.Int                  `db:"u64"`
	Narrow    int32                     `db:"narrow"`
	F32       float32                   `db:"f32"`
	F64       float64                   `db:"f64"`
	Blob      []byte                    `db:"blob"`
	At        time.Time                 `db:"at"`
	Took      int64                     `db:"took"`
	OfDay     time.Duration             `db:"of_day" cql:"time"`
	Span      gocql.Duration            `db:"span"`
	Big       *big.Int                  `db:"big"`
	Dec       *inf.Dec                  `db:"dec"`
	Addr      net.IP                    `db:"addr"`
	List      []string                  `db:"list"`
	SetOf     []string                  `db:"set_of" cql:"set"`
	SetAscii  []string                  `db:"set_ascii" cql:"set<ascii>"`
	Members   []string                  `db:"members" cql:"set"`
	Counts    map[string]int32          `db:"counts"`
	Nested    map[string][]int64        `db:"nested"`
	FrozenMap map[string]map[int64]bool `db:"frozen_map"`
	Maybe     string                    `db:"maybe"`
	MaybeAt   time.Time                 `db:"maybe_at"`
	Price     int64                     `db:"price"`
	Prices    []int64                   `db:"prices"`
	Events    []gocql.UUID              `db:"events" cql:"list<timeuuid>"`
	ByDay     map[time.Time]time.Time   `db:"by_day" cql:"map<date, timestamp>"`
	Stamped   time.Time                 `db:"stamped"`
}
