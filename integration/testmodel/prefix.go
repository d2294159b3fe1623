package testmodel

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Prefix reads: a clustering prefix fixed by equality, the next column
// bounded, over one partition, hash buckets and time buckets, with
// ascending and descending columns mixed.

// Trade is a trade of an account: kind ascending, day descending, seq
// ascending, readable with kind, or kind and day, fixed.
type Trade struct {
	_ cqlgen.Pattern `table:"trades_by_account" pk:"account" ck:"kind, day desc, seq" prefix:"kind, day" size:"rows=10k" doc:"an account's trades by kind, newest day first"`

	Account string    `db:"account"`
	Kind    string    `db:"kind"`
	Day     time.Time `db:"day" cql:"date"`
	Seq     int64     `db:"seq"`
	Shares  int32     `db:"shares"`
}

// DeskTrade is a trade of a desk, spread over 4 hash buckets: kind
// descending, day ascending, seq descending.
type DeskTrade struct {
	_ cqlgen.Pattern `table:"trades_by_desk" pk:"desk" ck:"kind desc, day, seq desc" prefix:"kind, day" bucket:"hash(seq) % 4" size:"rows=10k" doc:"a desk's trades by kind, over 4 hash buckets"`

	Desk   string    `db:"desk"`
	Kind   string    `db:"kind"`
	Day    time.Time `db:"day" cql:"date"`
	Seq    int64     `db:"seq"`
	Shares int32     `db:"shares"`
}

// Tick is a price tick of a symbol, a partition a day: kind ascending, at
// descending, seq ascending, readable with kind fixed over the days walked
// back.
type Tick struct {
	_ cqlgen.Pattern `table:"ticks_by_symbol" pk:"symbol" ck:"kind, at desc, seq" prefix:"kind" bucket:"day(at)" ttl:"30d" size:"rate=1k/d" doc:"a symbol's ticks by kind, newest first, a partition a day"`

	Symbol string    `db:"symbol"`
	Kind   string    `db:"kind"`
	At     time.Time `db:"at"`
	Seq    int64     `db:"seq"`
	Price  float64   `db:"price"`
}
