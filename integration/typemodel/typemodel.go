// Package typemodel holds one field of every Go type cqlgen maps (the
// types golden case's entity), stored in two tables, so that every type is
// written and read back through Get, both read methods and Update on the
// real node.
package typemodel

//go:generate go run github.com/cqlgen/cqlgen/cmd/cqlgen generate .

import (
	"math/big"
	"net"
	"time"

	_ "embed" // for Schema

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Genre is a named string; it maps like its underlying type.
type Genre string

// Money marshals itself; its CQL type must be given.
type Money struct{ Cents int64 }

// MarshalCQL implements gocql.Marshaler.
func (m Money) MarshalCQL(info gocql.TypeInfo) ([]byte, error) { return gocql.Marshal(info, m.Cents) }

// UnmarshalCQL implements gocql.Unmarshaler.
func (m *Money) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	return gocql.Unmarshal(info, data, &m.Cents)
}

// Everything has one field of each kind.
type Everything struct {
	_ cqlgen.Pattern `table:"everything,canonical" pk:"id" ck:"tags_key, day" size:"rows=10"`
	_ cqlgen.Pattern `table:"everything_by_s" pk:"s" ck:"id, tags_key, day" size:"rows=10"`

	ID       gocql.UUID              `db:"id"`
	Event    gocql.UUID              `db:"event" cql:"timeuuid"`
	Raw16    [16]byte                `db:"raw16"`
	S        string                  `db:"s"`
	A        string                  `db:"a" cql:"ascii"`
	G        Genre                   `db:"g"`
	B        bool                    `db:"b"`
	I        int                     `db:"i"`
	I8       int8                    `db:"i8"`
	I16      int16                   `db:"i16"`
	I32      int32                   `db:"i32"`
	I64      int64                   `db:"i64"`
	U8       uint8                   `db:"u8"`
	U16      uint16                  `db:"u16"`
	U32      uint32                  `db:"u32"`
	U64      uint64                  `db:"u64"`
	Narrow   int64                   `db:"narrow" cql:"int"`
	F32      float32                 `db:"f32"`
	F64      float64                 `db:"f64"`
	Blob     []byte                  `db:"blob"`
	At       time.Time               `db:"at"`
	Day      time.Time               `db:"day" cql:"date"`
	Took     time.Duration           `db:"took"`
	OfDay    time.Duration           `db:"of_day" cql:"time"`
	Span     gocql.Duration          `db:"span"`
	Big      *big.Int                `db:"big"`
	Dec      *inf.Dec                `db:"dec"`
	Addr     net.IP                  `db:"addr"`
	List     []string                `db:"list"`
	Set      []string                `db:"set_of" cql:"set"`
	SetAscii []string                `db:"set_ascii" cql:"set<ascii>"`
	Members  map[string]struct{}     `db:"members"`
	Counts   map[string]int32        `db:"counts"`
	Nested   map[string][]int64      `db:"nested"`
	TagsKey  []string                `db:"tags_key" cql:"frozen<list<text>>"`
	Frozen   map[Genre]map[int]bool  `db:"frozen_map"`
	Maybe    *string                 `db:"maybe"`
	MaybeAt  *time.Time              `db:"maybe_at"`
	Price    Money                   `db:"price" cql:"bigint"`
	Prices   []Money                 `db:"prices" cql:"frozen<list<bigint>>"`
	Events   []gocql.UUID            `db:"events" cql:"frozen<list<timeuuid>>"`
	ByDay    map[time.Time]time.Time `db:"by_day" cql:"map<date, timestamp>"`
}

// Schema is this package's generated schema.cql.
//
//go:embed schema.cql
var Schema string

// Playlist is an entity of one table holding a list: its unconditional
// writes are retried at the same timestamp after a lost reply.
type Playlist struct {
	_ cqlgen.Pattern `table:"playlists" pk:"id" size:"rows=1"`

	ID     gocql.UUID `db:"id"`
	Tracks []string   `db:"tracks"`
}
