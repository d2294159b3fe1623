package v2

import (
	"context"
	"errors"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// Rows written outside the protocol, on the v2 driver: tickets another
// program kept in every table, without cqlgen's bookkeeping (no version,
// claims without cqlgen_claim), and one pattern (tickets_by_owner) added
// since. Every write works on them, through a sparse, a hash-bucketed,
// a time-bucketed and a unique table; maintenance counts, backfills and
// adopts them, and every table ends in step.
// Checks invariant I15.
func TestLegacyRows(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	const n = 24
	tickets := make([]*v2model.Ticket, n)
	for i := range tickets {
		tickets[i] = ticket(i)
		must(t, repo.Insert(ctx, tickets[i]))
		// What another program's writes leave: no bookkeeping.
		must(t, e.gs.Query(`UPDATE tickets SET cqlgen_version = null, cqlgen_deleted = null, cqlgen_pending = null, cqlgen_writes = null WHERE ticket_id = ?`, tickets[i].TicketID).Exec())
		must(t, e.gs.Query(`UPDATE tickets_by_ref SET cqlgen_claim = null WHERE ref = ?`, tickets[i].Ref).Exec())
	}
	must(t, e.gs.Query(`TRUNCATE tickets_by_owner`).Exec())

	// Close one (it leaves the sparse table), move one to another queue
	// and reference, edit one, delete one, insert one again as it is.
	closed := *tickets[1]
	closed.Status = v2model.StatusClosed
	must(t, repo.Update(ctx, &closed))
	moved := *tickets[2]
	moved.Queue, moved.Ref = "q-new", "ref-new"
	must(t, repo.Update(ctx, &moved))
	if _, err := repo.Modify(ctx, tickets[3].TicketID, func(tk *v2model.Ticket) error { tk.Edits++; return nil }); err != nil {
		t.Fatal(err)
	}
	must(t, repo.Delete(ctx, tickets[4]))
	must(t, repo.Insert(ctx, tickets[5]))
	// The reference ticket 2 gave up is free; ticket 6's is not.
	free := ticket(100)
	free.Ref = tickets[2].Ref
	must(t, repo.Insert(ctx, free))
	rival := ticket(101)
	rival.Ref = tickets[6].Ref
	var conflict *cqlgen.UniqueConflictError
	if err := repo.Insert(ctx, rival); !errors.As(err, &conflict) {
		t.Fatalf("a rival for a reference a row written before cqlgen holds: %v", err)
	}

	o := &cqlmaintain.Options{Ranges: 8}
	rep, err := repo.Verify(ctx, o)
	must(t, err)
	if rep.Rows != n || rep.Unversioned != n-5 || rep.Graves != 1 {
		t.Fatalf("verify: %d rows, %d without a version, %d graves; want %d, %d, 1", rep.Rows, rep.Unversioned, rep.Graves, n, n-5)
	}
	for _, tr := range rep.Tables {
		missing := int64(0)
		if tr.Table == "tickets_by_owner" {
			missing = n - 5 // the changed and the new ones were written
		}
		if tr.Missing != missing || tr.Stale != 0 || tr.Orphans != 0 {
			t.Errorf("%s: %+v; want %d missing and nothing else", tr.Table, tr, missing)
		}
	}
	o.Job = "owner"
	rep, err = repo.Backfill(ctx, "tickets_by_owner", o)
	must(t, err)
	if rep.Tables[0].Inserted != n || rep.Left() != 0 {
		t.Fatalf("backfill: wrote %d, left %d; want %d and none", rep.Tables[0].Inserted, rep.Left(), n)
	}
	o.Job, o.Adopt = "stamp", true
	rep, err = repo.Repair(ctx, o)
	if err != nil || rep.Adopted != n-5 || rep.Left() != 0 {
		t.Fatalf("adopt: %+v, %v; want %d adopted", rep, err, n-5)
	}
	o.Job, o.Adopt = "", false
	rep, err = repo.Verify(ctx, o)
	if err != nil || rep.Unversioned != 0 || rep.Drift() != 0 {
		t.Fatalf("verify after adopt: %+v, %v", rep, err)
	}
	var ids []gocql.UUID
	it := e.gs.Query(`SELECT ticket_id FROM tickets_by_ref`).Iter()
	var id gocql.UUID
	for it.Scan(&id) {
		ids = append(ids, id)
	}
	must(t, it.Close())
	if len(ids) != n { // n - 1 deleted + the one inserted
		t.Errorf("tickets_by_ref holds %d claims read with plain gocql, want %d", len(ids), n)
	}
}
