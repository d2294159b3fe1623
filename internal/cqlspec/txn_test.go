package cqlspec

import (
	"strconv"
	"strings"
	"testing"
)

// A transaction's placeholders come in its text's order: the reads', the
// conditions', then the writes'.
func TestTransactionBindOrder(t *testing.T) {
	canon := &Table{Name: "members", PartitionKey: Cols("member_id text"), Columns: Cols("email text"), Canonical: true, Versioned: true, Transactional: true}
	email := &Table{Name: "members_by_email", PartitionKey: Cols("email text"), Columns: Cols("member_id text"), Unique: true, Transactional: true}
	part := func(tb *Table, slot Slot) Statement {
		for _, s := range Render(tb) {
			if s.Slot == slot {
				return s
			}
		}
		t.Fatalf("%s has no %s", tb.Name, slot)
		return Statement{}
	}
	cql, binds := Transaction([]Expect{
		{Table: canon, Read: part(canon, SlotTxnRead)},
		{Table: email, Read: part(email, SlotTxnClaimRead), Owner: Cols("member_id text")},
	}, []Statement{part(canon, SlotTxnChange), part(email, SlotTxnInsert)})
	want := `BEGIN TRANSACTION
	LET cur = (SELECT cqlgen_version FROM members WHERE member_id = ?);
	LET claim_members_by_email = (SELECT member_id,
			cqlgen_claim FROM members_by_email WHERE email = ?);
	SELECT cur.cqlgen_version, claim_members_by_email.cqlgen_claim;
	IF cur.cqlgen_version = ? AND claim_members_by_email.member_id = ? AND claim_members_by_email.cqlgen_claim = ? THEN
		UPDATE members
			SET email = ?, cqlgen_version = ?, cqlgen_deleted = false,
				cqlgen_pending = null, cqlgen_writes = ?
			WHERE member_id = ?;
		INSERT INTO members_by_email (email, member_id, cqlgen_claim)
			VALUES (?, ?, ?);
	END IF
COMMIT TRANSACTION`
	if cql != want {
		t.Errorf("got\n%s\nwant\n%s", cql, want)
	}
	var kinds []string
	for _, b := range binds {
		kinds = append(kinds, b.Column+":"+strconv.Itoa(int(b.Kind)))
	}
	if got := strings.Join(kinds, " "); got != "member_id:0 email:0 cqlgen_version:2 member_id:9 cqlgen_claim:200 email:0 cqlgen_version:0 :4 member_id:0 email:0 member_id:0 cqlgen_claim:0" {
		t.Errorf("binds %s", got)
	}
	if strings.Count(cql, "?") != len(binds) {
		t.Errorf("%d placeholders, %d binds", strings.Count(cql, "?"), len(binds))
	}
}
