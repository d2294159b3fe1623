package cqlgenimpl_test

import (
	"context"
	"testing"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

func BenchmarkZZTrackUpdate(b *testing.B) {
	s, err := cqltest.New(music.Schema)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	tracks := music.NewTrackRepo(s)
	in := music.Track{TrackID: "t1", ArtistID: "a1", PlayCount: 3, TrackName: "n", Album: "al", DurationS: 200}
	if err := tracks.Insert(ctx, &in); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		i++
		in.PlayCount = i
		if err := tracks.Update(ctx, &in); err != nil {
			b.Fatal(err)
		}
	}
}
