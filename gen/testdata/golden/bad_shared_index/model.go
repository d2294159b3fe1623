// Package bad_shared_index names an index already declared with another
// col, on or match: a second pattern naming an index adds a read through
// it, and must say what the first says of the index.
package bad_shared_index

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Song redeclares each of its indexes with something changed.
type Song struct {
	_ cqlgen.Pattern `table:"songs,canonical" pk:"album" ck:"song_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"songs_by_year" pk:"year" ck:"album, song_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"songs_by_genre" col:"genre" name:"SongsOfGenre"`
	_ cqlgen.Pattern `index:"songs_by_genre" col:"mood" name:"SongsOfMood"`
	_ cqlgen.Pattern `index:"songs_by_genre" on:"songs_by_year" col:"genre" name:"YearSongsOfGenre"`
	_ cqlgen.Pattern `index:"songs_by_rank" col:"rank" match:"range" name:"SongsRanked"`
	_ cqlgen.Pattern `index:"songs_by_rank" col:"rank" name:"SongsOfRank"`
	_ cqlgen.Pattern `index:"songs_by_credit" col:"keys(credits)" name:"SongsCrediting"`
	_ cqlgen.Pattern `index:"songs_by_credit" col:"credits" name:"SongsCredited"`
	_ cqlgen.Pattern `index:"songs_like" col:"sound" match:"ann" name:"SongsLike"`
	_ cqlgen.Pattern `index:"songs_like" col:"sound" match:"ann(euclidean)" score:"similarity" name:"SongsNear"`
	_ cqlgen.Pattern `index:"songs_like" col:"sound" match:"ann" score:"similarity" name:"SongsLike"`

	Album   string            `db:"album"`
	SongID  int32             `db:"song_id"`
	Year    int32             `db:"year"`
	Genre   string            `db:"genre"`
	Mood    string            `db:"mood"`
	Rank    int32             `db:"rank"`
	Credits map[string]string `db:"credits"`
	Sound   []float32         `db:"sound" cql:"vector<float, 4>"`
}
