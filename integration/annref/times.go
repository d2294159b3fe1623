package annref

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// CheckTimes checks GetTimes on s: the TTL and write time of the columns
// tagged cqlgen:"ttl, writetime", on rows the repository wrote (with a
// TTL of the call's, of the table's, and none) and, when plain is not
// nil, on rows written by plain CQL through it with USING TTL and
// TIMESTAMP (a null cell reads as zero). KillrVideo's videos, keyed by
// gocql v1's UUID, are checked when videos is set.
func CheckTimes(t *testing.T, s cqlgen.Session, plain func(cql string, args ...any) error, videos bool) {
	t.Helper()
	near := func(got, want time.Duration) bool { return got <= want && got > want-time.Minute }
	if videos {
		checkVideoTimes(t, s, plain, near)
	}
	checkNoticeTimes(t, s, plain, near)
}

// checkVideoTimes: KillrVideo's TTL(description) of a video, by a
// single-table entity written without the protocol.
func checkVideoTimes(t *testing.T, s cqlgen.Session, plain func(cql string, args ...any) error, near func(got, want time.Duration) bool) {
	t.Helper()
	ctx := context.Background()
	videos := testmodel.NewVideoRepo(s)

	before := time.Now()
	week := &testmodel.Video{VideoID: gocql.TimeUUID(), Name: "a week", Description: "gone in 7 days"}
	if err := videos.Insert(ctx, week, cqlgen.WithTTL(7*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got, times, err := videos.GetTimes(ctx, week.VideoID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != week.Name || got.Description != week.Description {
		t.Errorf("GetTimes read %+v, wrote %+v", got, week)
	}
	if !near(times.DescriptionTTL, 7*24*time.Hour) {
		t.Errorf("a week's TTL: %v", times.DescriptionTTL)
	}
	if w := times.DescriptionWritetime; w.Before(before.Add(-time.Second)) || w.After(after.Add(time.Second)) || w.Location() != time.UTC {
		t.Errorf("write time %v, not between %v and %v (UTC)", w, before, after)
	}

	forever := &testmodel.Video{VideoID: gocql.TimeUUID(), Name: "forever", Description: "stays"}
	if err := videos.Insert(ctx, forever); err != nil {
		t.Fatal(err)
	}
	if _, times, err := videos.GetTimes(ctx, forever.VideoID); err != nil || times.DescriptionTTL != 0 || times.DescriptionWritetime.IsZero() {
		t.Errorf("no TTL: %+v, %v; want a TTL of 0 and a write time", times, err)
	}
	if _, _, err := videos.GetTimes(ctx, gocql.TimeUUID()); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("GetTimes of no row: %v", err)
	}

	if plain != nil {
		stamped, null := gocql.TimeUUID(), gocql.TimeUUID()
		if err := plain("INSERT INTO videos (videoid, name, description) VALUES (?, ?, ?) USING TTL 600 AND TIMESTAMP 123456789", stamped, "plain", "by plain CQL"); err != nil {
			t.Fatal(err)
		}
		if err := plain("INSERT INTO videos (videoid, name) VALUES (?, ?) USING TTL 600 AND TIMESTAMP 123456789", null, "no description"); err != nil {
			t.Fatal(err)
		}
		if _, times, err := videos.GetTimes(ctx, stamped); err != nil || !near(times.DescriptionTTL, 600*time.Second) || !times.DescriptionWritetime.Equal(time.UnixMicro(123456789)) {
			t.Errorf("written by plain CQL with TTL 600 at 123456789µs: %+v, %v", times, err)
		}
		if _, times, err := videos.GetTimes(ctx, null); err != nil || times.DescriptionTTL != 0 || !times.DescriptionWritetime.IsZero() {
			t.Errorf("a null description: %+v, %v; want zeros", times, err)
		}
	}

}

// checkNoticeTimes: a versioned entity.
func checkNoticeTimes(t *testing.T, s cqlgen.Session, plain func(cql string, args ...any) error, near func(got, want time.Duration) bool) {
	t.Helper()
	ctx := context.Background()
	// A versioned entity: the protocol writes the source of truth with
	// the table's TTL, by a conditional write, whose cells take the
	// timestamp Cassandra gives it (Paxos' ballot, the coordinator's
	// clock), not the change's version (the client's clock): close to it.
	notices := testmodel.NewNoticeRepo(s)
	n := &testmodel.Notice{ID: "n1", Board: "hall", Body: "fire drill", Labels: []string{"safety"}}
	if err := notices.Insert(ctx, n); err != nil {
		t.Fatal(err)
	}
	_, version, err := notices.GetVersioned(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	_, nt, err := notices.GetTimes(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if !near(nt.BodyTTL, 30*24*time.Hour) {
		t.Errorf("a notice's TTL: %v, want the table's 30 days", nt.BodyTTL)
	}
	closeTo := func(w time.Time, v int64) bool {
		d := w.Sub(time.UnixMicro(v))
		return d > -time.Minute && d < time.Minute
	}
	if !closeTo(nt.BodyWritetime, version) || !nt.LabelsWritetime.Equal(nt.BodyWritetime) {
		t.Errorf("a notice's write times %v, %v; its version %d", nt.BodyWritetime, nt.LabelsWritetime, version)
	}
	n.Body = "fire drill at noon"
	if err := notices.Update(ctx, n); err != nil {
		t.Fatal(err)
	}
	_, version2, err := notices.GetVersioned(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	_, nt2, err := notices.GetTimes(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if !closeTo(nt2.BodyWritetime, version2) || !nt2.BodyWritetime.After(nt.BodyWritetime) || version2 <= version {
		t.Errorf("after an update of the body: written at %v (was %v), version %d (was %d)", nt2.BodyWritetime, nt.BodyWritetime, version2, version)
	}
	if plain != nil {
		// A row written before cqlgen, by plain CQL: a null cell reads as zero.
		if err := plain("INSERT INTO notices (id, board, body) VALUES (?, ?, ?) USING TTL 600 AND TIMESTAMP 123456789", "p1", "hall", "by plain CQL"); err != nil {
			t.Fatal(err)
		}
		if _, times, err := notices.GetTimes(ctx, "p1"); err != nil || !near(times.BodyTTL, 600*time.Second) || !times.BodyWritetime.Equal(time.UnixMicro(123456789)) || !times.LabelsWritetime.IsZero() {
			t.Errorf("a notice written by plain CQL with TTL 600 at 123456789µs, no labels: %+v, %v", times, err)
		}
	}
	if err := notices.Delete(ctx, n); err != nil {
		t.Fatal(err)
	}
	if _, _, err := notices.GetTimes(ctx, "n1"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("GetTimes of a deleted notice (a grave): %v", err)
	}
}
