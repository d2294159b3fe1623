package cqltest_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/gen/testdata/golden/quoted"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Columns whose names CQL reads only quoted (from, to, order, createdAt,
// lastSeen; db:"name,quoted"), in keys and regular columns, through every
// statement kind the repositories send, on the in-memory Cassandra: it
// must parse the quoted names of the DDL and of every statement, as a
// node does (integration's TestQuotedNames runs the same on one).
func TestQuotedNames(t *testing.T) {
	schema, err := os.ReadFile("../../gen/testdata/golden/quoted/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	// This cqltest refuses counter tables: leave hits (a counter named
	// order) to the node's test.
	ddl := string(schema)
	start := strings.Index(ddl, "CREATE TABLE IF NOT EXISTS hits (")
	end := start + strings.Index(ddl[start:], ";")
	s, err := cqltest.New(ddl[:start] + ddl[end+1:])
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exec := func(cql string, values ...any) {
		t.Helper()
		if err := s.Exec(ctx, cqldriver.Query{Stmt: &cqldriver.Statement{CQL: cql, Kind: cqlgen.Write}, Values: values}); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
	}
	base := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)

	// A write-protocol entity, its projection keyed by from and ordered
	// by createdAt, a unique table, an index on to.
	transfers := quoted.NewTransferRepo(s)
	var ids []gocql.UUID
	for i := range 6 {
		tr := &quoted.Transfer{ID: gocql.TimeUUID(), From: "ann", To: []string{"bo", "cy"}[i%2], Ref: "r" + string(rune('0'+i)), CreatedAt: base.Add(time.Duration(i) * time.Minute), Amount: int64(10 * i)}
		must(t, transfers.Insert(ctx, tr))
		ids = append(ids, tr.ID)
	}
	got, err := transfers.Get(ctx, ids[1])
	must(t, err)
	got.To, got.Amount = "dee", 99
	must(t, transfers.Update(ctx, got))
	if got, err = transfers.Get(ctx, ids[1]); err != nil || got.To != "dee" || got.Amount != 99 || got.From != "ann" || !got.CreatedAt.Equal(base.Add(time.Minute)) {
		t.Fatalf("Get after Update: %+v, %v", got, err)
	}
	found, err := transfers.GetMany(ctx, ids[:3])
	must(t, err)
	if len(found.Missing) != 0 || found.Rows[2].Ref != "r2" {
		t.Errorf("GetMany: %+v", found)
	}
	if byRef, err := transfers.TransferByRef(ctx, "r3"); err != nil || byRef.ID != ids[3] {
		t.Errorf("TransferByRef: %+v, %v", byRef, err)
	}
	if to, err := transfers.TransfersTo(ctx, "bo", nil); err != nil || len(to.Rows) != 3 {
		t.Errorf("TransfersTo(bo): %d rows, %v", len(to.Rows), err)
	}
	must(t, transfers.Delete(ctx, &quoted.Transfer{ID: ids[5]}))
	if _, err := transfers.Get(ctx, ids[5]); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	// Newest first, in pages of two over the four hash buckets, then
	// bounded on createdAt.
	var refs []string
	o := &quoted.TransfersByFromOptions{Limit: 2}
	for {
		page, err := transfers.TransfersByFrom(ctx, "ann", o)
		must(t, err)
		for _, r := range page.Rows {
			refs = append(refs, r.Ref)
		}
		if page.Cursor == "" {
			break
		}
		o.Cursor = page.Cursor
	}
	if want := "r4 r3 r2 r1 r0"; strings.Join(refs, " ") != want {
		t.Errorf("TransfersByFrom: %s, want %s", strings.Join(refs, " "), want)
	}
	// In read order, newest first: from 3 minutes in, down to (not
	// including) 1 minute in.
	from, to := base.Add(3*time.Minute), base.Add(time.Minute)
	page, err := transfers.TransfersByFrom(ctx, "ann", &quoted.TransfersByFromOptions{CreatedAtFrom: &from, CreatedAtTo: &to})
	must(t, err)
	if refs := refsOf(page.Rows); refs != "r3 r2" {
		t.Errorf("TransfersByFrom bounded: %s, want r3 r2", refs)
	}

	// Drift made by hand, in quoted CQL: a value changed behind the
	// protocol's back, and a projection row no entity implies.
	exec(`UPDATE transfers SET "to" = 'zed' WHERE id = ?`, ids[0])
	exec(`INSERT INTO transfers_by_from ("from", bucket, "createdAt", id, "to", ref, amount) VALUES ('ann', 0, ?, ?, 'x', 'r9', 1)`, base, gocql.TimeUUID())
	report, err := transfers.Verify(ctx, nil)
	must(t, err)
	if tr := tableReport(report, "transfers_by_from"); tr.Stale != 1 || tr.Orphans != 1 || tr.Missing != 0 {
		t.Errorf("Verify: %+v", report.Tables)
	}
	_, err = transfers.Repair(ctx, nil)
	must(t, err)
	report, err = transfers.Verify(ctx, nil)
	must(t, err)
	for _, tr := range report.Tables {
		if tr.Stale+tr.Orphans+tr.Missing != 0 {
			t.Errorf("Verify after Repair: %+v", tr)
		}
	}

	// An entity of one table keyed by quoted columns, with a prefix read.
	edges := quoted.NewEdgeRepo(s)
	for i := range 4 {
		must(t, edges.Insert(ctx, &quoted.Edge{From: "n1", To: []string{"a", "b"}[i%2], CreatedAt: base.Add(time.Duration(i) * time.Hour), LastSeen: base, Weight: int32(i)}))
	}
	must(t, edges.Update(ctx, &quoted.Edge{From: "n1", To: "a", CreatedAt: base, LastSeen: base.Add(time.Hour), Weight: 7}))
	if e, err := edges.Get(ctx, "n1", "a", base); err != nil || e.Weight != 7 || !e.LastSeen.Equal(base.Add(time.Hour)) {
		t.Errorf("Edge Get: %+v, %v", e, err)
	}
	must(t, edges.Delete(ctx, &quoted.Edge{From: "n1", To: "b", CreatedAt: base.Add(3 * time.Hour)}))
	a := "a"
	var weights []int32
	eo := &quoted.EdgesOptions{Limit: 1, ToEq: &a}
	for {
		page, err := edges.Edges(ctx, "n1", eo)
		must(t, err)
		for _, e := range page.Rows {
			weights = append(weights, e.Weight)
		}
		if page.Cursor == "" {
			break
		}
		eo.Cursor = page.Cursor
	}
	if len(weights) != 2 || weights[0] != 2 || weights[1] != 7 {
		t.Errorf("Edges to a, newest first: %v, want [2 7]", weights)
	}
	all, err := edges.Edges(ctx, "n1", nil)
	must(t, err)
	if len(all.Rows) != 3 {
		t.Errorf("Edges: %d rows, want 3", len(all.Rows))
	}
}

func refsOf(rows []quoted.Transfer) string {
	var refs []string
	for _, r := range rows {
		refs = append(refs, r.Ref)
	}
	return strings.Join(refs, " ")
}

func tableReport(r *cqlmaintain.Report, table string) cqlmaintain.TableReport {
	for _, tr := range r.Tables {
		if tr.Table == table {
			return tr
		}
	}
	return cqlmaintain.TableReport{}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
