// Package filter declares filter patterns: reads that combine conditions
// on several indexed columns, scattered and within a partition, with
// ranges whose bounds each read chooses.
package filter

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Video is a video of a catalogue, with an index on each column its
// filters read.
type Video struct {
	_ cqlgen.Pattern `table:"videos" pk:"videoid" size:"rows=1"`
	_ cqlgen.Pattern `index:"videos_tags_idx" col:"tags"`
	_ cqlgen.Pattern `index:"videos_added_idx" col:"added_date" match:"range"`
	_ cqlgen.Pattern `index:"videos_category_idx" col:"category"`
	_ cqlgen.Pattern `index:"videos_rating_idx" col:"rating"`
	_ cqlgen.Pattern `filter:"tags contains and category eq" name:"VideosByTagAndCategory"`
	_ cqlgen.Pattern `filter:"category eq and rating eq and added_date range" name:"VideosAdded" doc:"a category's videos of a rating, added in a range of dates"`

	VideoID   string    `db:"videoid"`
	AddedDate time.Time `db:"added_date"`
	Tags      []string  `db:"tags" cql:"set<text>"`
	Category  string    `db:"category"`
	Rating    string    `db:"rating"`
}

// Upload is a video in the list of its user, read within the user's
// partition through two ranges at once.
type Upload struct {
	_ cqlgen.Pattern `table:"uploads" pk:"user_id" ck:"at desc, id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"uploads_views_idx" col:"views" match:"range" pk:"user_id"`
	_ cqlgen.Pattern `index:"uploads_length_idx" col:"length_s" match:"range" pk:"user_id"`
	_ cqlgen.Pattern `index:"uploads_tags_idx" col:"tags" pk:"user_id"`
	_ cqlgen.Pattern `filter:"tags contains and views range and length_s range" pk:"user_id" name:"UploadsByViewsAndLength"`
	_ cqlgen.Pattern `index:"uploads_labels_idx" col:"keys(labels)" pk:"user_id"`
	_ cqlgen.Pattern `filter:"labels contains key and views range" name:"UploadsByLabelAndViews"`

	UserID string           `db:"user_id"`
	At     time.Time        `db:"at"`
	ID     int64            `db:"id"`
	Tags   []string         `db:"tags" cql:"set<text>"`
	Views  int64            `db:"views"`
	Length int32            `db:"length_s"`
	Labels map[string]int32 `db:"labels"`
}
