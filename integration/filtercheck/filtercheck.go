// Package filtercheck holds the check of reads that combine several
// storage-attached indexes (integration/saimodel's filter patterns), run
// by the v1 suite and by the v2 suite on their own drivers: it writes
// random videos through the repositories and reads them back through
// every filter, with every choice of bounds and several page sizes,
// against a reference filter in Go over the rows written.
package filtercheck

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/saimodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

var (
	categories = []string{"Education", "Music", "Gaming"}
	languages  = []string{"English", "French"}
	ratings    = []string{"G", "PG", "R"}
	tags       = []string{"tutorial", "programming", "cassandra", "live"}
	labels     = []string{"hd", "captioned", "sponsored"}
)

// bounds is one choice of a range's ends: From exclusive, To inclusive.
type bounds struct{ fromX, toI bool }

func (b bounds) in(v, from, to int64) bool {
	lo := v > from || !b.fromX && v == from
	hi := v < to || b.toI && v == to
	return lo && hi
}

var allBounds = []bounds{{false, false}, {true, false}, {false, true}, {true, true}}

func pageAll[T any](t *testing.T, limit int, read func(cursor string) (cqlgen.Page[T], error)) []T {
	t.Helper()
	var rows []T
	cursor := ""
	for range 10000 {
		page, err := read(cursor)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Rows) > limit {
			t.Fatalf("a page of %d rows over the limit %d", len(page.Rows), limit)
		}
		rows = append(rows, page.Rows...)
		if page.Cursor == "" {
			return rows
		}
		if len(page.Rows) == 0 {
			t.Fatal("an empty page with a cursor")
		}
		cursor = page.Cursor
	}
	t.Fatal("paging did not end")
	return nil
}

func randomTags(r *rand.Rand) []string {
	var ts []string
	for _, tg := range tags {
		if r.IntN(2) == 0 {
			ts = append(ts, tg)
		}
	}
	return ts
}

// Videos writes n random videos through s and checks the filters of
// Video, scatters all, against the rows written: the same rows, in token
// order (the order of a scatter), which a full scan of the table, with no
// index, gives.
func Videos(t *testing.T, s cqlgen.Session, seed uint64, n int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 1))
	t.Logf("seed %d", seed)
	repo := saimodel.NewVideoRepo(s)
	base := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)
	var all []saimodel.Video
	for i := range n {
		v := saimodel.Video{
			VideoID:       fmt.Sprintf("v%04d", i),
			AddedDate:     base.Add(time.Duration(r.IntN(30)) * 24 * time.Hour),
			Name:          fmt.Sprintf("video %d", i),
			Tags:          randomTags(r),
			UserID:        fmt.Sprintf("u%d", r.IntN(5)),
			ContentRating: ratings[r.IntN(len(ratings))],
			Category:      categories[r.IntN(len(categories))],
			Language:      languages[r.IntN(len(languages))],
			LocationType:  int32(r.IntN(10)),
		}
		if err := repo.Insert(ctx, &v); err != nil {
			t.Fatal(err)
		}
		all = append(all, v)
	}
	// A full scan returns the videos in token order, which orders a
	// scatter's rows.
	token := map[string]int{}
	scan := &cqldriver.Statement{CQL: "SELECT videoid FROM videos", Table: "videos", Pattern: "filtercheck", Kind: cqldriver.Read, Idempotent: true}
	it := s.Iter(ctx, cqldriver.Query{Stmt: scan, PageSize: cqldriver.Unpaged})
	var id string
	for it.Scan(&id) {
		token[id] = len(token)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if len(token) != n {
		t.Fatalf("the node holds %d videos, the test wrote %d", len(token), n)
	}
	want := func(keep func(saimodel.Video) bool) []string {
		var out []saimodel.Video
		for _, v := range all {
			if keep(v) {
				out = append(out, v)
			}
		}
		slices.SortFunc(out, func(a, b saimodel.Video) int { return token[a.VideoID] - token[b.VideoID] })
		return ids(out)
	}
	check := func(what string, got []saimodel.Video, exp []string) {
		t.Helper()
		if g := ids(got); !slices.Equal(g, exp) {
			t.Errorf("%s:\n got %d %v\nwant %d %v", what, len(g), g, len(exp), exp)
		}
	}
	matched := 0
	for round := range 6 {
		tag, cat, lang, rating := tags[r.IntN(len(tags))], categories[r.IntN(len(categories))], languages[r.IntN(len(languages))], ratings[r.IntN(len(ratings))]
		limit := []int{1, 3, 10, 1000}[round%4]
		exp := want(func(v saimodel.Video) bool { return slices.Contains(v.Tags, tag) && v.Category == cat })
		matched += len(exp)
		check(fmt.Sprintf("VideosByTagAndCategory(%s, %s) limit %d", tag, cat, limit), pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.Video], error) {
			return repo.VideosByTagAndCategory(ctx, tag, cat, &saimodel.VideosByTagAndCategoryOptions{Limit: limit, Cursor: c})
		}), exp)
		exp = want(func(v saimodel.Video) bool {
			return v.Category == cat && v.ContentRating == rating && slices.Contains(v.Tags, tag)
		})
		matched += len(exp)
		check(fmt.Sprintf("VideosByCategoryRatingTag(%s, %s, %s) limit %d", cat, rating, tag, limit), pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.Video], error) {
			return repo.VideosByCategoryRatingTag(ctx, cat, rating, tag, &saimodel.VideosByCategoryRatingTagOptions{Limit: limit, Cursor: c})
		}), exp)
		exp = want(func(v saimodel.Video) bool {
			return v.Category == cat && v.Language == lang && v.ContentRating == rating
		})
		matched += len(exp)
		check(fmt.Sprintf("VideosByCategoryLanguageRating(%s, %s, %s) limit %d", cat, lang, rating, limit), pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.Video], error) {
			return repo.VideosByCategoryLanguageRating(ctx, cat, lang, rating, &saimodel.VideosByCategoryLanguageRatingOptions{Limit: limit, Cursor: c})
		}), exp)
	}
	// Ranges, each bound on a day or a type some videos hold, with every
	// choice of bounds.
	day := func(d int) time.Time { return base.Add(time.Duration(d) * 24 * time.Hour) }
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	for _, db := range allBounds {
		from, to := day(5+r.IntN(5)), day(15+r.IntN(10))
		tag := tags[r.IntN(len(tags))]
		exp := want(func(v saimodel.Video) bool {
			return slices.Contains(v.Tags, tag) && db.in(ms(v.AddedDate), ms(from), ms(to))
		})
		matched += len(exp)
		check(fmt.Sprintf("VideosByTagAddedBetween(%s, %s, %s, %+v)", tag, from, to, db), pageAll(t, 7, func(c string) (cqlgen.Page[saimodel.Video], error) {
			return repo.VideosByTagAddedBetween(ctx, tag, from, to, &saimodel.VideosByTagAddedBetweenOptions{Limit: 7, Cursor: c, AddedDateFromExclusive: db.fromX, AddedDateToInclusive: db.toI})
		}), exp)
		for _, lb := range allBounds {
			lang := languages[r.IntN(len(languages))]
			lo, hi := int32(1+r.IntN(3)), int32(5+r.IntN(4))
			exp := want(func(v saimodel.Video) bool {
				return db.in(ms(v.AddedDate), ms(from), ms(to)) && lb.in(int64(v.LocationType), int64(lo), int64(hi)) && v.Language == lang
			})
			matched += len(exp)
			check(fmt.Sprintf("VideosByAddedLocationLanguage(%s, %s, %d, %d, %s, %+v, %+v)", from, to, lo, hi, lang, db, lb), pageAll(t, 5, func(c string) (cqlgen.Page[saimodel.Video], error) {
				return repo.VideosByAddedLocationLanguage(ctx, from, to, lo, hi, lang, &saimodel.VideosByAddedLocationLanguageOptions{
					Limit: 5, Cursor: c,
					AddedDateFromExclusive: db.fromX, AddedDateToInclusive: db.toI,
					LocationTypeFromExclusive: lb.fromX, LocationTypeToInclusive: lb.toI,
				})
			}), exp)
		}
	}
	// A cursor belongs to its read's values: another tag refuses it.
	page, err := repo.VideosByTagAddedBetween(ctx, "tutorial", day(0), day(30), &saimodel.VideosByTagAddedBetweenOptions{Limit: 1})
	if err != nil || page.Cursor == "" {
		t.Fatalf("a first page of one row: %v, cursor %q", err, page.Cursor)
	}
	_, err = repo.VideosByTagAddedBetween(ctx, "live", day(0), day(30), &saimodel.VideosByTagAddedBetweenOptions{Limit: 1, Cursor: page.Cursor})
	var bad *cqlgen.InputError
	if !errors.As(err, &bad) || !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("a cursor of tag tutorial given for tag live: %v, want an ErrInvalidCursor", err)
	}
	if matched < 100 {
		t.Fatalf("the reads matched %d rows in all: too few to check paging", matched)
	}
}

// UserVideos writes random videos of a few users through s and checks
// the filters of UserVideo, each within one user's partition, against the
// rows written, in clustering order (newest first).
func UserVideos(t *testing.T, s cqlgen.Session, seed uint64, n int) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 2))
	repo := saimodel.NewUserVideoRepo(s)
	base := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)
	var all []saimodel.UserVideo
	for i := range n {
		v := saimodel.UserVideo{
			UserID:        fmt.Sprintf("u%d", r.IntN(3)),
			AddedDate:     base.Add(time.Duration(r.IntN(20)) * time.Hour), // several videos share a time: a continuation takes two runs
			VideoID:       fmt.Sprintf("v%04d", i),
			Name:          fmt.Sprintf("video %d", i),
			Tags:          randomTags(r),
			ContentRating: ratings[r.IntN(len(ratings))],
			Category:      categories[r.IntN(len(categories))],
			Views:         int64(r.IntN(8)) * 100,
			LengthS:       int32(r.IntN(6)) * 60,
			Labels:        map[string]int32{},
		}
		for _, l := range labels {
			if r.IntN(3) == 0 {
				v.Labels[l] = int32(r.IntN(100))
			}
		}
		if err := repo.Insert(ctx, &v); err != nil {
			t.Fatal(err)
		}
		all = append(all, v)
	}
	want := func(keep func(saimodel.UserVideo) bool) []string {
		var out []saimodel.UserVideo
		for _, v := range all {
			if keep(v) {
				out = append(out, v)
			}
		}
		slices.SortFunc(out, func(a, b saimodel.UserVideo) int {
			if c := b.AddedDate.Compare(a.AddedDate); c != 0 {
				return c
			}
			return strings.Compare(a.VideoID, b.VideoID)
		})
		var s []string
		for _, v := range out {
			s = append(s, v.VideoID)
		}
		return s
	}
	idsOf := func(vs []saimodel.UserVideo) []string {
		var s []string
		for _, v := range vs {
			s = append(s, v.VideoID)
		}
		return s
	}
	matched := 0
	for round := range 6 {
		user := fmt.Sprintf("u%d", round%3)
		tag, cat, rating := tags[r.IntN(len(tags))], categories[r.IntN(len(categories))], ratings[r.IntN(len(ratings))]
		limit := []int{1, 2, 1000}[round%3]
		exp := want(func(v saimodel.UserVideo) bool {
			return v.UserID == user && v.Category == cat && v.ContentRating == rating && slices.Contains(v.Tags, tag)
		})
		matched += len(exp)
		got := idsOf(pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.UserVideo], error) {
			return repo.UserVideosFiltered(ctx, user, cat, rating, tag, &saimodel.UserVideosFilteredOptions{Limit: limit, Cursor: c})
		}))
		if !slices.Equal(got, exp) {
			t.Errorf("UserVideosFiltered(%s, %s, %s, %s) limit %d:\n got %v\nwant %v", user, cat, rating, tag, limit, got, exp)
		}
	}
	for _, vb := range allBounds {
		for _, lb := range allBounds {
			user := fmt.Sprintf("u%d", r.IntN(3))
			tag := tags[r.IntN(len(tags))]
			vlo, vhi := int64(100*(1+r.IntN(2))), int64(100*(4+r.IntN(3)))
			llo, lhi := int32(60*r.IntN(2)), int32(60*(3+r.IntN(2)))
			exp := want(func(v saimodel.UserVideo) bool {
				return v.UserID == user && slices.Contains(v.Tags, tag) && vb.in(v.Views, vlo, vhi) && lb.in(int64(v.LengthS), int64(llo), int64(lhi))
			})
			matched += len(exp)
			got := idsOf(pageAll(t, 3, func(c string) (cqlgen.Page[saimodel.UserVideo], error) {
				return repo.UserVideosByTagViewsLength(ctx, user, tag, vlo, vhi, llo, lhi, &saimodel.UserVideosByTagViewsLengthOptions{
					Limit: 3, Cursor: c,
					ViewsFromExclusive: vb.fromX, ViewsToInclusive: vb.toI,
					LengthSFromExclusive: lb.fromX, LengthSToInclusive: lb.toI,
				})
			}))
			if !slices.Equal(got, exp) {
				t.Errorf("UserVideosByTagViewsLength(%s, %s, views [%d, %d] %+v, length [%d, %d] %+v):\n got %v\nwant %v", user, tag, vlo, vhi, vb, llo, lhi, lb, got, exp)
			}
		}
	}
	// A map's keys, within a partition and over every partition.
	for round := range 6 {
		user := fmt.Sprintf("u%d", round%3)
		label, cat, rating := labels[r.IntN(len(labels))], categories[r.IntN(len(categories))], ratings[r.IntN(len(ratings))]
		limit := []int{1, 4, 1000}[round%3]
		exp := want(func(v saimodel.UserVideo) bool {
			_, ok := v.Labels[label]
			return v.UserID == user && ok && v.Category == cat
		})
		matched += len(exp)
		got := idsOf(pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.UserVideo], error) {
			return repo.UserVideosByLabelAndCategory(ctx, user, label, cat, &saimodel.UserVideosByLabelAndCategoryOptions{Limit: limit, Cursor: c})
		}))
		if !slices.Equal(got, exp) {
			t.Errorf("UserVideosByLabelAndCategory(%s, %s, %s) limit %d:\n got %v\nwant %v", user, label, cat, limit, got, exp)
		}
		// The index's own read: the key alone.
		exp = want(func(v saimodel.UserVideo) bool {
			_, ok := v.Labels[label]
			return v.UserID == user && ok
		})
		matched += len(exp)
		got = idsOf(pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.UserVideo], error) {
			return repo.UserVideosLabelsIdx(ctx, user, label, &saimodel.UserVideosLabelsIdxOptions{Limit: limit, Cursor: c})
		}))
		if !slices.Equal(got, exp) {
			t.Errorf("UserVideosLabelsIdx(%s, %s) limit %d:\n got %v\nwant %v", user, label, limit, got, exp)
		}
		vb := allBounds[round%4]
		lo, hi := int64(100*(1+r.IntN(2))), int64(100*(4+r.IntN(3)))
		exp = want(func(v saimodel.UserVideo) bool {
			_, ok := v.Labels[label]
			return ok && v.ContentRating == rating && vb.in(v.Views, lo, hi)
		})
		matched += len(exp)
		// A scatter's order is the token's, which this check does not
		// know for a table of several rows a partition: the rows as a set,
		// each once.
		got = idsOf(pageAll(t, limit, func(c string) (cqlgen.Page[saimodel.UserVideo], error) {
			return repo.VideosByLabelRatingViews(ctx, label, rating, lo, hi, &saimodel.VideosByLabelRatingViewsOptions{Limit: limit, Cursor: c, ViewsFromExclusive: vb.fromX, ViewsToInclusive: vb.toI})
		}))
		slices.Sort(got)
		slices.Sort(exp)
		if !slices.Equal(got, exp) {
			t.Errorf("VideosByLabelRatingViews(%s, %s, [%d, %d] %+v) limit %d:\n got %v\nwant %v", label, rating, lo, hi, vb, limit, got, exp)
		}
	}
	if matched < 60 {
		t.Fatalf("the reads matched %d rows in all: too few to check paging", matched)
	}
}

func ids(vs []saimodel.Video) []string {
	var s []string
	for _, v := range vs {
		s = append(s, v.VideoID)
	}
	return s
}
