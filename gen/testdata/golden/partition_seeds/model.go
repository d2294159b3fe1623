// Package partition_seeds reproduces the partition-size verdicts of the
// music streaming lesson.
package partition_seeds

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// UnshardedChartEntry: 100M tracks a day at about 50 bytes a row in one
// partition a day is about 5 GB: flagged.
type UnshardedChartEntry struct {
	_ cqlgen.Pattern `table:"daily_charts_unsharded" pk:"chart_date" ck:"play_count desc, track_id" size:"rows=100M, rowbytes=50"`

	ChartDate time.Time `db:"chart_date" cql:"date"`
	PlayCount int64     `db:"play_count"`
	TrackID   string    `db:"track_id"`
}

// ChartEntry: the same, sharded into 100 hash buckets, is about 50 MB a
// partition: accepted.
type ChartEntry struct {
	_ cqlgen.Pattern `table:"daily_charts" pk:"chart_date" ck:"play_count desc, track_id" bucket:"hash(track_id) % 100 as shard" size:"rows=100M, rowbytes=50"`

	ChartDate time.Time `db:"chart_date" cql:"date"`
	PlayCount int64     `db:"play_count"`
	TrackID   string    `db:"track_id"`
}

// Play: 15 plays an hour, 8 hours a day, kept 90 days, is about 10,800
// rows: accepted.
type Play struct {
	_ cqlgen.Pattern `table:"listening_history" pk:"user_id" ck:"played_at desc, track_id" ttl:"90d" size:"rate=120/d"`

	UserID   string    `db:"user_id"`
	PlayedAt time.Time `db:"played_at"`
	TrackID  string    `db:"track_id"`
}

// PlayForever: the same history without TTL or bucket: flagged as
// unbounded.
type PlayForever struct {
	_ cqlgen.Pattern `table:"listening_history_forever" pk:"user_id" ck:"played_at desc, track_id" size:"rate=120/d"`

	UserID   string    `db:"user_id"`
	PlayedAt time.Time `db:"played_at"`
	TrackID  string    `db:"track_id"`
}
