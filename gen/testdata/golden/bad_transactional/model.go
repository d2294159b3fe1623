// Package bad_transactional declares what the transactional mode cannot
// take: a misplaced option, a TTL, counters, statics, an entity in one
// table and an immutable one.
package bad_transactional

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Shift is placed on the wrong pattern, and its table has a TTL.
type Shift struct {
	_ cqlgen.Pattern `table:"shifts,canonical" pk:"shift_id"`
	_ cqlgen.Pattern `table:"shifts_by_day,transactional" pk:"day" ck:"shift_id" ttl:"7d" size:"rows=1k"`

	ShiftID string `db:"shift_id"`
	Day     string `db:"day"`
}

// Note is stored in one table.
type Note struct {
	_ cqlgen.Pattern `table:"notes,canonical,transactional" pk:"note_id"`

	NoteID string `db:"note_id"`
	Text   string `db:"text"`
}

// Visit is immutable.
type Visit struct {
	_ cqlgen.Pattern `table:"visits,canonical,immutable,transactional" pk:"visit_id"`
	_ cqlgen.Pattern `table:"visits_by_page" pk:"page" ck:"visit_id" size:"rows=1k"`

	VisitID string `db:"visit_id"`
	Page    string `db:"page"`
}

// Room has statics in its source of truth.
type Room struct {
	_ cqlgen.Pattern `table:"rooms,canonical,transactional" pk:"building" ck:"room_id" static:"address" size:"rows=100"`
	_ cqlgen.Pattern `table:"rooms_by_floor" pk:"floor" ck:"building, room_id" cols:"seats" size:"rows=1k"`

	Building string `db:"building"`
	RoomID   string `db:"room_id"`
	Floor    int    `db:"floor"`
	Address  string `db:"address"`
	Seats    int    `db:"seats"`
}

// Ticket keeps its canonical rows for a day.
type Ticket struct {
	_ cqlgen.Pattern `table:"tickets,canonical,transactional" pk:"ticket_id" ttl:"24h"`
	_ cqlgen.Pattern `table:"tickets_by_queue" pk:"queue" ck:"ticket_id" size:"rows=1k"`

	TicketID string `db:"ticket_id"`
	Queue    string `db:"queue"`
}

// Tally counts, in two counter tables.
type Tally struct {
	_ cqlgen.Pattern `table:"tallies,canonical,transactional" pk:"tally_id"`
	_ cqlgen.Pattern `table:"tallies_by_kind" pk:"kind" ck:"tally_id" size:"rows=1k"`

	TallyID string `db:"tally_id"`
	Kind    string `db:"kind"`
	Hits    int64  `db:"hits" cql:"counter"`
}
