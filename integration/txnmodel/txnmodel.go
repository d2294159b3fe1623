// Package txnmodel declares the entity of the Cassandra 6 tests of the
// transactional mode (docs/cassandra6.md): every write of a Member is one
// Accord transaction over its four tables.
package txnmodel

//go:generate go run github.com/cqlgen/cqlgen/cmd/cqlgen generate .

import (
	_ "embed" // for Schema

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Schema is this package's generated schema.cql.
//
//go:embed schema.cql
var Schema string

// Member belongs to a team, signs in with an email no one else has, and
// may be flagged for review.
type Member struct {
	_ cqlgen.Pattern `table:"members,canonical,transactional" pk:"member_id"`
	_ cqlgen.Pattern `table:"members_by_team" pk:"team" ck:"name, member_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"flagged_members" pk:"team" ck:"member_id" where:"flagged = true" size:"rows=1k"`
	_ cqlgen.Pattern `table:"members_by_email,unique" pk:"email" name:"MemberByEmail"`

	MemberID string `db:"member_id"`
	Team     string `db:"team"`
	Name     string `db:"name"`
	Email    string `db:"email"`
	Flagged  bool   `db:"flagged"`
	Score    int64  `db:"score"`
}

// Account is the same shape written through the write protocol, for
// the benchmarks against it on the same node.
type Account struct {
	_ cqlgen.Pattern `table:"accounts,canonical" pk:"member_id"`
	_ cqlgen.Pattern `table:"accounts_by_team" pk:"team" ck:"name, member_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"flagged_accounts" pk:"team" ck:"member_id" where:"flagged = true" size:"rows=1k"`
	_ cqlgen.Pattern `table:"accounts_by_email,unique" pk:"email" name:"AccountByEmail"`

	MemberID string `db:"member_id"`
	Team     string `db:"team"`
	Name     string `db:"name"`
	Email    string `db:"email"`
	Flagged  bool   `db:"flagged"`
	Score    int64  `db:"score"`
}
