package bad_static

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Team declares statics that cannot be static.
type Team struct {
	_ cqlgen.Pattern `table:"teams,canonical" pk:"team_id" static:"name"`
	_ cqlgen.Pattern `table:"team_members" pk:"team_id" ck:"member_id" static:"team_id, member_id, name"`

	TeamID   string `db:"team_id"`
	MemberID string `db:"member_id"`
	Name     string `db:"name"`
}
