package gen_test

import (
	"testing"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/example/quickstart"
	"github.com/cqlgen/cqlgen/internal/testutil/costcheck"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// costRepos makes each example entity's repository: Go finds no function
// by name, so the test lists them; an entity of the examples missing here
// fails the test.
var costRepos = costcheck.Repos{
	"helpdesk.Agent":        func(s cqlgen.Session) any { return helpdesk.NewAgentRepo(s) },
	"helpdesk.AgentLoad":    func(s cqlgen.Session) any { return helpdesk.NewAgentLoadRepo(s) },
	"helpdesk.Customer":     func(s cqlgen.Session) any { return helpdesk.NewCustomerRepo(s) },
	"helpdesk.TicketEvent":  func(s cqlgen.Session) any { return helpdesk.NewTicketEventRepo(s) },
	"helpdesk.Ticket":       func(s cqlgen.Session) any { return helpdesk.NewTicketRepo(s) },
	"helpdesk.Article":      func(s cqlgen.Session) any { return helpdesk.NewArticleRepo(s) },
	"helpdesk.AuditEvent":   func(s cqlgen.Session) any { return helpdesk.NewAuditEventRepo(s) },
	"helpdesk.Macro":        func(s cqlgen.Session) any { return helpdesk.NewMacroRepo(s) },
	"helpdesk.Reply":        func(s cqlgen.Session) any { return helpdesk.NewReplyRepo(s) },
	"helpdesk.AgentSession": func(s cqlgen.Session) any { return helpdesk.NewAgentSessionRepo(s) },
	"helpdesk.Organisation": func(s cqlgen.Session) any { return helpdesk.NewOrganisationRepo(s) },
	"helpdesk.TimeEntry":    func(s cqlgen.Session) any { return helpdesk.NewTimeEntryRepo(s) },
	"helpdesk.CannedReply":  func(s cqlgen.Session) any { return helpdesk.NewCannedReplyRepo(s) },
	"messaging.Message":     func(s cqlgen.Session) any { return messaging.NewMessageRepo(s) },
	"music.Play":            func(s cqlgen.Session) any { return music.NewPlayRepo(s) },
	"music.Track":           func(s cqlgen.Session) any { return music.NewTrackRepo(s) },
	"music.PlaylistTrack":   func(s cqlgen.Session) any { return music.NewPlaylistTrackRepo(s) },
	"music.ChartEntry":      func(s cqlgen.Session) any { return music.NewChartEntryRepo(s) },
	"music.Release":         func(s cqlgen.Session) any { return music.NewReleaseRepo(s) },
	"quickstart.Note":       func(s cqlgen.Session) any { return quickstart.NewNoteRepo(s) },
}

// TestWriteCostsMatchTheRuntime runs every write the review pages of the
// examples price, for every entity, on cqltest's in-memory session, and
// counts what the runtime sent (reads, conditional writes, statements,
// requests, rows written) against the page's figures.
func TestWriteCostsMatchTheRuntime(t *testing.T) {
	if n := costcheck.Check(t, "..", []string{"./example/..."}, costRepos); n < 40 {
		t.Errorf("checked %d priced writes; the examples price more", n)
	}
}
