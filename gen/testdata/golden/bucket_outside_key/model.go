package bucket_outside_key

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Availability buckets its one table by a column outside its key: a
// Delete given the key alone would look in the bucket of an empty guest.
type Availability struct {
	_ cqlgen.Pattern `table:"availability" pk:"hotel_id" ck:"day, room" bucket:"hash(guest) % 4" size:"rows=1k"`

	HotelID string    `db:"hotel_id"`
	Day     time.Time `db:"day" cql:"date"`
	Room    int16     `db:"room"`
	Guest   string    `db:"guest"`
}

// Stay buckets its source of truth by a time outside its key; the other
// table may (its rows move when the time changes).
type Stay struct {
	_ cqlgen.Pattern `table:"stays,canonical" pk:"hotel_id" ck:"stay_id" bucket:"month(checked_in)" size:"rows=1k"`
	_ cqlgen.Pattern `table:"stays_by_day" pk:"hotel_id" ck:"stay_id" bucket:"day(checked_in)" size:"rows=1k"`

	HotelID   string    `db:"hotel_id"`
	StayID    string    `db:"stay_id"`
	CheckedIn time.Time `db:"checked_in"`
}
