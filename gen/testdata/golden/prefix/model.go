package prefix

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Trade is one trade of an account: the trades of a type, between two
// dates, are a prefix read (type fixed, trade_date bounded), over a
// canonical table and a hash-bucketed one; readings by sensor fix a kind
// and a day and walk time buckets.
type Trade struct {
	_ cqlgen.Pattern `table:"trades_by_account,canonical" pk:"account" ck:"type, trade_date desc, trade_id" prefix:"type" size:"rows=10k" doc:"an account's trades, by type, newest first"`
	_ cqlgen.Pattern `table:"trades_by_symbol" pk:"symbol" ck:"type, trade_date, account, trade_id" prefix:"type, trade_date" bucket:"hash(account) % 8" size:"rows=100k" doc:"a symbol's trades, by type and date"`

	Account   string    `db:"account"`
	Type      string    `db:"type"`
	TradeDate time.Time `db:"trade_date" cql:"date"`
	TradeID   int64     `db:"trade_id"`
	Symbol    string    `db:"symbol"`
	Shares    int32     `db:"shares"`
}

// Reading is a sensor's reading, bucketed by day: a prefix read fixes its
// kind and bounds the time within each day walked.
type Reading struct {
	_ cqlgen.Pattern `table:"readings_by_kind" pk:"sensor" ck:"kind, at desc" prefix:"kind" bucket:"day(at)" ttl:"30d"`

	Sensor string    `db:"sensor"`
	Kind   string    `db:"kind"`
	At     time.Time `db:"at"`
	Value  float64   `db:"value"`
}
