package bad_prefix

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Trade declares prefixes that cannot be read.
type Trade struct {
	_ cqlgen.Pattern `table:"trades,canonical" pk:"account" ck:"type, trade_date, trade_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"trades_skip" pk:"account" ck:"type, trade_date, trade_id" prefix:"trade_date" size:"rows=1k"`
	_ cqlgen.Pattern `table:"trades_all" pk:"account" ck:"type, trade_date, trade_id" prefix:"type, trade_date, trade_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"trades_not_ck" pk:"account" ck:"type, trade_date, trade_id" prefix:"symbol" size:"rows=1k"`
	_ cqlgen.Pattern `table:"trades_typo" pk:"account" ck:"type, trade_date, trade_id" prefix:"typ" size:"rows=1k"`
	_ cqlgen.Pattern `table:"trades_by_symbol,unique" pk:"symbol, trade_id" prefix:"trade_id"`

	Account   string    `db:"account"`
	Type      string    `db:"type"`
	TradeDate time.Time `db:"trade_date" cql:"date"`
	TradeID   int64     `db:"trade_id"`
	Symbol    string    `db:"symbol"`
}
