package helpdesk

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Macro is a canned reply that agents insert into tickets. Macros used to
// be listed by title across the whole organisation; now each team keeps
// its own, so the list moves from macros_by_title to macros_by_team, keyed
// by team. A key cannot change in place, so the change takes the
// expand/contract path (docs/runbook.md, "Changing a table's key"), and
// this declaration is halfway along it: both tables are declared and
// written, the old one is deprecated, and cqlgen diff says what is left
// before it can be dropped: the backfill of macros_by_team, and the switch
// of reads from MacrosByTitle to MacrosByTeam.
type Macro struct {
	_ cqlgen.Pattern `table:"macros,canonical" pk:"org_id, macro_id" doc:"a macro by id"`
	_ cqlgen.Pattern `table:"macros_by_title,deprecated" replaced_by:"macros_by_team" pk:"org_id" ck:"title, macro_id" size:"rows=2000" doc:"an organisation's macros by title"`
	_ cqlgen.Pattern `table:"macros_by_team" pk:"org_id, team" ck:"title, macro_id" size:"rows=300" doc:"a team's macros by title"`

	OrgID   string `db:"org_id"`
	MacroID string `db:"macro_id"`
	Team    string `db:"team"`
	Title   string `db:"title"`
	Body    string `db:"body"`
}
