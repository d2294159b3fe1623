// Package transactional declares an entity whose every write is one
// Accord transaction on Cassandra 6: its tables move together, a sparse
// one included, and its email is claimed in the same transaction.
package transactional

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

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
}
