// Package quoted declares the columns of existing tables whose names CQL
// reads only in double quotes, with db:"name,quoted": reserved words
// (from, to) and mixed-case names (createdAt, lastSeen), in partition
// keys, clustering columns and regular columns, through every statement
// kind.
package quoted

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Transfer goes through the write protocol: its source of truth is keyed
// by id, a projection by from, ordered by createdAt, in hash buckets (a
// scatter read); a unique table claims each ref; an index finds the
// transfers to an account anywhere.
type Transfer struct {
	_ cqlgen.Pattern `table:"transfers,canonical" pk:"id" doc:"a transfer by its id"`
	_ cqlgen.Pattern `table:"transfers_by_from" pk:"from" ck:"createdAt desc, id" bucket:"hash(id) % 4" doc:"the transfers from an account, newest first"`
	_ cqlgen.Pattern `table:"transfers_by_ref,unique" pk:"ref" name:"TransferByRef"`
	_ cqlgen.Pattern `index:"transfers_to" on:"transfers" col:"to" doc:"the transfers to an account, over every partition"`

	ID        gocql.UUID `db:"id"`
	From      string     `db:"from,quoted"`
	To        string     `db:"to,quoted"`
	Ref       string     `db:"ref"`
	CreatedAt time.Time  `db:"createdAt,quoted"`
	Amount    int64      `db:"amount"`
}

// Edge is stored in one table, outside the write protocol: its key is
// quoted throughout, with a prefix read that fixes to.
type Edge struct {
	_ cqlgen.Pattern `table:"edges" pk:"from" ck:"to, createdAt desc" prefix:"to" size:"rows=1k" doc:"the edges from a node, by destination, newest first"`

	From      string    `db:"from,quoted"`
	To        string    `db:"to,quoted"`
	CreatedAt time.Time `db:"createdAt,quoted"`
	LastSeen  time.Time `db:"lastSeen,quoted"`
	Weight    int32     `db:"weight"`
}

// Hit counts the visits from a node, by day: a counter table with a
// quoted key and a quoted counter.
type Hit struct {
	_ cqlgen.Pattern `table:"hits" pk:"from" ck:"day" size:"rows=1k"`

	From  string    `db:"from,quoted"`
	Day   time.Time `db:"day" cql:"date"`
	Order int64     `db:"order,quoted" cql:"counter"`
}
