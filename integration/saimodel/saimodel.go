// Package saimodel declares the entities of the tests of reads that
// combine several storage-attached indexes (filter patterns): KillrVideo
// v5's videos, read as its published queries read them (a tag and a
// category; category, content rating and tag; category, language and
// content rating; a tag and a range of dates), and a user's videos, read
// within one partition by conditions on several indexed columns with two
// ranges at once, and by the keys of a map. Its fields are of types both Go drivers bind alike, so
// the v1 and v2 suites run the same generated code.
package saimodel

//go:generate go run github.com/cqlgen/cqlgen/cmd/cqlgen generate .

import (
	_ "embed" // for Schema
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Schema is this package's generated schema.cql.
//
//go:embed schema.cql
var Schema string

// Video is a video of the catalogue, as KillrVideo v5's videos table
// holds it, with its indexes; its filters are the published queries that
// combine two or three of them.
type Video struct {
	_ cqlgen.Pattern `table:"videos" pk:"videoid" size:"rows=1"`
	_ cqlgen.Pattern `index:"videos_tags_idx" col:"tags" doc:"the videos with a tag"`
	_ cqlgen.Pattern `index:"videos_added_date_idx" col:"added_date" match:"range" doc:"the videos added in a range of dates"`
	_ cqlgen.Pattern `index:"videos_category_idx" col:"category" doc:"the videos of a category"`
	_ cqlgen.Pattern `index:"videos_language_idx" col:"language" doc:"the videos in a language"`
	_ cqlgen.Pattern `index:"videos_content_rating_idx" col:"content_rating" doc:"the videos of a content rating"`
	_ cqlgen.Pattern `index:"videos_location_type_idx" col:"location_type" match:"range" doc:"the videos of a range of location types"`
	_ cqlgen.Pattern `filter:"tags contains and category eq" name:"VideosByTagAndCategory" doc:"the videos of a category with a tag"`
	_ cqlgen.Pattern `filter:"category eq and content_rating eq and tags contains" name:"VideosByCategoryRatingTag" doc:"the videos of a category and a content rating with a tag"`
	_ cqlgen.Pattern `filter:"category eq and language eq and content_rating eq" name:"VideosByCategoryLanguageRating" doc:"the videos of a category, a language and a content rating"`
	_ cqlgen.Pattern `filter:"tags contains and added_date range" name:"VideosByTagAddedBetween" doc:"the videos with a tag added in a range of dates"`
	_ cqlgen.Pattern `filter:"added_date range and location_type range and language eq" name:"VideosByAddedLocationLanguage" doc:"the videos in a language added in a range of dates, of a range of location types"`

	VideoID       string    `db:"videoid"`
	AddedDate     time.Time `db:"added_date"`
	Name          string    `db:"name"`
	Tags          []string  `db:"tags" cql:"set<text>"`
	UserID        string    `db:"userid"`
	ContentRating string    `db:"content_rating"`
	Category      string    `db:"category"`
	Language      string    `db:"language"`
	LocationType  int32     `db:"location_type"`
}

// UserVideo is a video in the list of the user who added it, newest
// first; its filters read one user's videos by conditions on several
// indexed columns, a map's keys among them, and every user's by a label.
type UserVideo struct {
	_ cqlgen.Pattern `table:"user_videos" pk:"userid" ck:"added_date desc, videoid" size:"rows=1000"`
	_ cqlgen.Pattern `index:"user_videos_category_idx" col:"category" pk:"userid" doc:"a user's videos of a category"`
	_ cqlgen.Pattern `index:"user_videos_rating_idx" col:"content_rating" pk:"userid" doc:"a user's videos of a content rating"`
	_ cqlgen.Pattern `index:"user_videos_tags_idx" col:"tags" pk:"userid" doc:"a user's videos with a tag"`
	_ cqlgen.Pattern `index:"user_videos_views_idx" col:"views" match:"range" pk:"userid" doc:"a user's videos of a range of views"`
	_ cqlgen.Pattern `index:"user_videos_length_idx" col:"length_s" match:"range" pk:"userid" doc:"a user's videos of a range of lengths"`
	_ cqlgen.Pattern `filter:"category eq and content_rating eq and tags contains" pk:"userid" name:"UserVideosFiltered" doc:"a user's videos of a category and a content rating with a tag"`
	_ cqlgen.Pattern `filter:"tags contains and views range and length_s range" pk:"userid" name:"UserVideosByTagViewsLength" doc:"a user's videos with a tag, in a range of views and a range of lengths"`
	_ cqlgen.Pattern `index:"user_videos_labels_idx" col:"keys(labels)" pk:"userid" doc:"a user's videos with a label"`
	_ cqlgen.Pattern `filter:"labels contains key and category eq" pk:"userid" name:"UserVideosByLabelAndCategory" doc:"a user's videos of a category with a label"`
	_ cqlgen.Pattern `filter:"labels contains key and content_rating eq and views range" name:"VideosByLabelRatingViews" doc:"every user's videos with a label, of a content rating and a range of views"`

	UserID        string    `db:"userid"`
	AddedDate     time.Time `db:"added_date"`
	VideoID       string    `db:"videoid"`
	Name          string    `db:"name"`
	Tags          []string  `db:"tags" cql:"set<text>"`
	ContentRating string    `db:"content_rating"`
	Category      string    `db:"category"`
	Views         int64     `db:"views"`
	LengthS       int32     `db:"length_s"`
	// Labels are a video's labels, each with a weight; an index on the
	// map's keys finds the videos with a label.
	Labels map[string]int32 `db:"labels"`
}
