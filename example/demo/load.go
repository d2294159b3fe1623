package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// parallel runs n jobs on 16 workers and returns the first error.
func parallel(n int, job func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := job(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func runMusic(ctx context.Context, s cqlgen.Session) error {
	rng := rand.New(rand.NewPCG(24, 11))
	now := time.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	start := time.Now()

	tracks := music.NewTrackRepo(s)
	catalogue := make([]music.Track, 200)
	for i := range catalogue {
		catalogue[i] = music.Track{
			TrackID:   fmt.Sprintf("trk_%03d", i),
			ArtistID:  fmt.Sprintf("art_%d", i%8),
			PlayCount: rng.Int64N(1_000_000),
			TrackName: fmt.Sprintf("Song %d", i),
			Album:     fmt.Sprintf("Album %d", i%20),
			DurationS: int32(150 + rng.IntN(150)),
		}
	}
	if err := parallel(len(catalogue), func(i int) error { return tracks.Insert(ctx, &catalogue[i]) }); err != nil {
		return err
	}
	// A play count is a clustering column of top_tracks_by_artist: each
	// update moves the row (delete, then insert 1µs later).
	if err := parallel(50, func(i int) error {
		t := catalogue[i*4]
		t.PlayCount += 5_000_000
		return tracks.Update(ctx, &t)
	}); err != nil {
		return err
	}

	plays := music.NewPlayRepo(s)
	if err := parallel(1200, func(i int) error {
		t := catalogue[(i*37)%len(catalogue)]
		return plays.Insert(ctx, &music.Play{
			UserID: fmt.Sprintf("user_%d", i%6), PlayedAt: now.Add(-time.Duration(i) * 3 * time.Minute),
			TrackID: t.TrackID, TrackName: t.TrackName, Artist: t.ArtistID, DurationS: t.DurationS,
		})
	}); err != nil {
		return err
	}

	playlists := music.NewPlaylistTrackRepo(s)
	if err := parallel(90, func(i int) error {
		t := catalogue[(i*11)%len(catalogue)]
		return playlists.Insert(ctx, &music.PlaylistTrack{
			PlaylistID: fmt.Sprintf("pl_%d", i%3), Position: int32(i / 3), TrackID: t.TrackID,
			TrackName: t.TrackName, Artist: t.ArtistID, DurationS: t.DurationS, AddedBy: "user_0",
		})
	}); err != nil {
		return err
	}

	charts := music.NewChartEntryRepo(s)
	entries := make([]music.ChartEntry, 2000)
	for i := range entries {
		entries[i] = music.ChartEntry{ChartDate: today, TrackID: fmt.Sprintf("chart_trk_%04d", i), PlayCount: rng.Int64N(100_000), TrackName: fmt.Sprintf("Hit %d", i), Artist: fmt.Sprintf("art_%d", i%50)}
	}
	if err := parallel(len(entries), func(i int) error { return charts.Insert(ctx, &entries[i]) }); err != nil {
		return err
	}
	fmt.Printf("== loaded %d tracks (50 play counts then changed), 1200 plays, 90 playlist entries and %d chart entries in %s\n\n",
		len(catalogue), len(entries), time.Since(start).Round(time.Millisecond))

	history, err := plays.ListeningHistory(ctx, "user_1", &music.ListeningHistoryOptions{Limit: 5})
	if err != nil {
		return err
	}
	fmt.Println("AP1 user_1's listening history, newest first (5 rows, then a cursor for the next page):")
	for _, p := range history.Rows {
		fmt.Printf("    %s  %-8s %s\n", p.PlayedAt.Format(time.DateTime), p.TrackID, p.TrackName)
	}
	fmt.Printf("    next page: cursor %.32s...\n\n", history.Cursor)

	top, err := tracks.TopTracksByArtist(ctx, "art_0", &music.TopTracksByArtistOptions{Limit: 5})
	if err != nil {
		return err
	}
	fmt.Println("AP2 art_0's top tracks, most played first:")
	for _, t := range top.Rows {
		fmt.Printf("    %9d plays  %-8s %s\n", t.PlayCount, t.TrackID, t.TrackName)
	}
	fmt.Println()

	list, err := playlists.PlaylistTracks(ctx, "pl_0", &music.PlaylistTracksOptions{Limit: 8})
	if err != nil {
		return err
	}
	fmt.Println("AP3 playlist pl_0 in order (first 8):")
	for _, p := range list.Rows {
		fmt.Printf("    #%-3d %-8s %s\n", p.Position, p.TrackID, p.TrackName)
	}
	fmt.Println()

	chart, err := charts.DailyCharts(ctx, today, &music.DailyChartsOptions{Limit: 10})
	if err != nil {
		return err
	}
	fmt.Printf("AP4 today's top 10, merged over the 100 shards of daily_charts:\n")
	for i, e := range chart.Rows {
		fmt.Printf("    %2d. %6d plays  %s\n", i+1, e.PlayCount, e.TrackID)
	}
	fmt.Println()
	return nil
}

func runMessaging(ctx context.Context, s cqlgen.Session) error {
	msgs := messaging.NewMessageRepo(s)
	start := time.Now()
	base := time.Now().UTC().Add(-24 * time.Hour)
	if err := parallel(1500, func(i int) error {
		at := base.Add(time.Duration(i) * 30 * time.Second)
		return msgs.Insert(ctx, &messaging.Message{
			ConversationID: fmt.Sprintf("conv_%d", i%10), MessageID: gocql.UUIDFromTime(at),
			UserID: fmt.Sprintf("user_%d", i%7), SentAt: at, Text: fmt.Sprintf("message %d", i),
		})
	}); err != nil {
		return err
	}
	fmt.Printf("== loaded 1500 messages, each into messages_by_conversation and messages_by_user, in %s\n\n", time.Since(start).Round(time.Millisecond))
	conv, err := msgs.MessagesByConversation(ctx, "conv_3", &messaging.MessagesByConversationOptions{Limit: 5})
	if err != nil {
		return err
	}
	fmt.Println("Q1 messages in conv_3, newest first:")
	for _, m := range conv.Rows {
		fmt.Printf("    %s  %-7s %s\n", m.SentAt.Format(time.DateTime), m.UserID, m.Text)
	}
	fmt.Println()
	byUser, err := msgs.MessagesByUser(ctx, "user_4", &messaging.MessagesByUserOptions{Limit: 5})
	if err != nil {
		return err
	}
	fmt.Println("Q2 messages sent by user_4, newest first:")
	for _, m := range byUser.Rows {
		fmt.Printf("    %s  %-7s %s\n", m.SentAt.Format(time.DateTime), m.ConversationID, m.Text)
	}
	return nil
}
