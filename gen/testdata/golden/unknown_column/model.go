package unknown_column

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Play refers to columns it does not have.
type Play struct {
	_ cqlgen.Pattern `table:"plays" pk:"usr_id" ck:"played_at desc, trackid" cols:"nme" static:"nope" id:"user_id, missing"`

	UserID   string `db:"user_id"`
	PlayedAt int64  `db:"played_at"`
	TrackID  string `db:"track_id"`
	Name     string `db:"name"`
}
