// Package shared_index declares several reads through one index: a
// second pattern that names an index already declared, with the same
// col, on and match, adds a read through it; the index is created once.
package shared_index

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Song is read through each kind of index twice: once within an album,
// once over every album, or scored by another similarity function.
type Song struct {
	_ cqlgen.Pattern `table:"songs" pk:"album" ck:"song_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"songs_by_genre" col:"genre" pk:"album" name:"AlbumSongsOfGenre"`
	_ cqlgen.Pattern `index:"songs_by_genre" col:"genre" name:"SongsOfGenre" doc:"the songs of a genre over every album"`
	_ cqlgen.Pattern `index:"songs_by_release" col:"released" match:"range" pk:"album" name:"AlbumSongsReleased"`
	_ cqlgen.Pattern `index:"songs_by_release" col:"released" match:"range" name:"SongsReleased"`
	_ cqlgen.Pattern `index:"songs_by_tag" col:"tags" pk:"album" name:"AlbumSongsTagged"`
	_ cqlgen.Pattern `index:"songs_by_tag" col:"tags" name:"SongsTagged"`
	_ cqlgen.Pattern `index:"songs_by_credit" col:"keys(credits)" pk:"album" name:"AlbumSongsCrediting"`
	_ cqlgen.Pattern `index:"songs_by_credit" col:"keys(credits)" name:"SongsCrediting"`
	_ cqlgen.Pattern `index:"songs_like" col:"sound" match:"ann" score:"similarity" name:"SongsLike"`
	_ cqlgen.Pattern `index:"songs_like" col:"sound" match:"ann" score:"similarity(euclidean)" name:"SongsLikeEuclidean"`
	_ cqlgen.Pattern `index:"songs_like" col:"sound" match:"ann" pk:"album" filter:"genre eq" score:"similarity(dot_product)" name:"AlbumSongsLikeDot"`

	Album    string            `db:"album"`
	SongID   int32             `db:"song_id"`
	Genre    string            `db:"genre"`
	Released time.Time         `db:"released"`
	Tags     []string          `db:"tags" cql:"set<text>"`
	Credits  map[string]string `db:"credits"`
	Sound    []float32         `db:"sound" cql:"vector<float, 4>"`
}
