package protocol

import (
	"errors"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
)

// txnFixture is the entity of the golden case transactional: members
// (canonical), members_by_team, flagged_members (sparse: flagged) and
// members_by_email (unique).
func txnFixture() (*desc.TxnEntity, func(id, team, name, email string, flagged bool) *desc.TxnImage) {
	canon := desc.NewTable(desc.TableSpec{Name: "members", Pattern: "Members", PartitionKey: desc.Cols("member_id text"),
		Columns: desc.Cols("team text", "name text", "email text", "flagged boolean"), Canonical: true, Versioned: true, Fenced: true, Maintained: true, Transactional: true})
	byTeam := desc.NewTable(desc.TableSpec{Name: "members_by_team", Pattern: "MembersByTeam", PartitionKey: desc.Cols("team text"),
		Clustering: desc.Cols("name text", "member_id text"), Columns: desc.Cols("email text", "flagged boolean"), Maintained: true, Transactional: true})
	flagged := desc.NewTable(desc.TableSpec{Name: "flagged_members", Pattern: "FlaggedMembers", PartitionKey: desc.Cols("team text"),
		Clustering: desc.Cols("member_id text"), Columns: desc.Cols("name text", "email text", "flagged boolean"), Maintained: true, Transactional: true})
	byEmail := desc.NewTable(desc.TableSpec{Name: "members_by_email", Pattern: "MemberByEmail", PartitionKey: desc.Cols("email text"),
		Columns: desc.Cols("member_id text"), Unique: true, Maintained: true, Transactional: true})
	index := map[string]int{"member_id": 0, "team": 1, "name": 2, "email": 3, "flagged": 4}
	x := desc.NewTxnEntity(canon, []*desc.Table{byTeam, flagged, byEmail}, []bool{false, false, true}, index)
	image := func(id, team, name, email string, f bool) *desc.TxnImage {
		return &desc.TxnImage{
			Values: []any{id, team, name, email, f},
			Key:    []any{id},
			Rows: []desc.TxnRow{
				{Holds: true, Key: []any{team, name, id}, Row: []any{team, name, id, email, f, int64(0)}},
				{Holds: f, Key: []any{team, id}, Row: []any{team, id, name, email, f, int64(0)}},
				{Holds: true, Key: []any{email}, Row: []any{email, id, int64(0)}},
			},
		}
	}
	return x, image
}

// Each transaction's values match its placeholders one for one, and it
// writes exactly the rows the change needs.
func TestTxnPlan(t *testing.T) {
	x, image := txnFixture()
	canonical := desc.TxnExpect{Table: -1, Key: []any{"m1"}, Version: 7}
	for _, c := range []struct {
		name      string
		cur, next *desc.TxnImage
		expects   []desc.TxnExpect
		want      []string // the writes, in order
	}{
		{"insert", nil, image("m1", "red", "ann", "a@x", false),
			[]desc.TxnExpect{{Table: -1, Key: []any{"m1"}, Absent: true}, {Table: 2, Key: []any{"a@x"}, Absent: true}},
			[]string{"UPDATE members", "INSERT INTO members_by_team", "INSERT INTO members_by_email"}},
		{"a change of fields no other table's key holds", image("m1", "red", "ann", "a@x", false), image("m1", "red", "ann", "a@x", false), []desc.TxnExpect{canonical},
			[]string{"UPDATE members"}},
		{"a key move entering the sparse table", image("m1", "red", "ann", "a@x", false), image("m1", "blue", "ann", "a@x", true), []desc.TxnExpect{canonical},
			[]string{"UPDATE members", "DELETE FROM members_by_team", "INSERT INTO members_by_team", "INSERT INTO flagged_members"}},
		{"leaving the sparse table, a new email", image("m1", "red", "ann", "a@x", true), image("m1", "red", "ann", "b@x", false),
			[]desc.TxnExpect{canonical, {Table: 2, Key: []any{"b@x"}, Version: 3, Owner: []any{"m9"}}},
			[]string{"UPDATE members", "INSERT INTO members_by_team", "DELETE FROM flagged_members", "DELETE FROM members_by_email", "INSERT INTO members_by_email"}},
		{"delete", image("m1", "red", "ann", "a@x", true), nil, []desc.TxnExpect{canonical},
			[]string{"DELETE FROM members", "DELETE FROM members_by_team", "DELETE FROM flagged_members", "DELETE FROM members_by_email"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := x.Plan(c.cur, c.next, 9, []byte{1}, c.expects, false)
			var got []string
			for _, p := range w.Parts {
				head, _, _ := strings.Cut(p.Clauses[0], " (")
				got = append(got, head)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("writes %q, want %q", got, c.want)
			}
			stmt, values := x.Statement(w)
			var expects []cqlspec.Expect
			for _, e := range w.Expects {
				if e.Table < 0 {
					expects = append(expects, cqlspec.Expect{Table: &x.Canon.Spec, Read: x.Read, Absent: e.Absent})
				} else {
					tt := x.Tables[e.Table]
					expects = append(expects, cqlspec.Expect{Table: &tt.T.Spec, Read: tt.Claim, Absent: e.Absent, Owner: tt.Owner})
				}
			}
			cql, binds := cqlspec.Transaction(expects, w.Parts)
			if stmt.CQL != cql || len(values) != len(binds) || strings.Count(cql, "?") != len(binds) {
				t.Errorf("%d values for %d placeholders (%d marks) in\n%s", len(values), len(binds), strings.Count(cql, "?"), stmt.CQL)
			}
			if again, _ := x.Statement(x.Plan(c.cur, c.next, 10, nil, c.expects, false)); again != stmt {
				t.Errorf("the same shape made a second statement")
			}
		})
	}
}

// The server's refusals of a level (verbatim from 6.0-alpha2,
// docs/cassandra6.md) become an *InputError naming the level, what it is
// for, the table and the session as where it came from.
func TestAccordLevelError(t *testing.T) {
	for _, c := range []struct{ msg, name, level string }{
		{"ConsistencyLevel LOCAL_QUORUM is unsupported with Accord for write/commit, supported are [ANY, ONE, QUORUM, ALL, SERIAL]", "SessionOptions.WriteConsistency", "LOCAL_QUORUM"},
		{"ConsistencyLevel LOCAL_QUORUM is unsupported with Accord for read, supported are [ONE, QUORUM, ALL, SERIAL]", "SessionOptions.ReadConsistency", "LOCAL_QUORUM"},
		{"ConsistencyLevel LOCAL_SERIAL is unsupported with Accord for read, supported are [ONE, QUORUM, ALL, SERIAL]", "SessionOptions.SerialConsistency", "LOCAL_SERIAL"},
	} {
		err := accordLevelError("members", errors.New(c.msg))
		var in *cqlgen.InputError
		if !errors.As(err, &in) || in.Table != "members" || in.Name != c.name || !strings.HasPrefix(in.Reason, c.level+", a ") ||
			!strings.Contains(in.Reason, "from the session") || !strings.HasSuffix(in.Reason, c.msg) {
			t.Errorf("%s: got %v", c.msg, err)
		}
	}
	other := errors.New("no hosts available")
	if err := accordLevelError("members", other); err != other {
		t.Errorf("another error became %v", err)
	}
}
