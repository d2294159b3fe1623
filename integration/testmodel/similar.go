package testmodel

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Embedding is a row with one vector a similarity function, written by
// the protocol (two tables), for the tests of ANN reads that return
// Cassandra's score, the scan of each row skipping graves: within a space
// (cosine), within a space among one kind (dot product), over every space
// among one kind (euclidean), and ordered by one function while scored by
// another, among rows with a label.
type Embedding struct {
	_ cqlgen.Pattern `table:"embeddings,canonical" pk:"space" ck:"id" size:"rows=100"`
	_ cqlgen.Pattern `table:"embeddings_of_kind" pk:"kind" ck:"space, id" size:"rows=100"`
	_ cqlgen.Pattern `index:"embeddings_by_kind" col:"kind" doc:"the rows of a kind, over every space"`
	_ cqlgen.Pattern `index:"embeddings_by_label" col:"labels" pk:"space" doc:"a space's rows with a label"`
	_ cqlgen.Pattern `index:"embeddings_cos" col:"cos" match:"ann" pk:"space" score:"similarity" name:"NearestCos" doc:"a space's rows nearest a vector, with their cosine similarity"`
	_ cqlgen.Pattern `index:"embeddings_dot" col:"dot" match:"ann(dot_product)" pk:"space" filter:"kind eq" score:"similarity" name:"NearestDot" doc:"a space's rows of a kind nearest a vector, with their dot product similarity"`
	_ cqlgen.Pattern `index:"embeddings_euc" col:"euc" match:"ann(euclidean)" filter:"kind eq" score:"similarity" name:"NearestEuc" doc:"the rows of a kind nearest a vector over every space, with their euclidean similarity"`
	_ cqlgen.Pattern `index:"embeddings_mix" col:"mix" match:"ann" pk:"space" filter:"labels contains" score:"similarity(euclidean)" name:"NearestMix" doc:"a space's rows with a label nearest a vector by cosine, with their euclidean similarity"`

	Space  string    `db:"space"`
	ID     int32     `db:"id"`
	Kind   string    `db:"kind"`
	Labels []string  `db:"labels" cql:"set<text>"`
	Cos    []float32 `db:"cos" cql:"vector<float, 3>"`
	Dot    []float32 `db:"dot" cql:"vector<float, 3>"`
	Euc    []float32 `db:"euc" cql:"vector<float, 3>"`
	Mix    []float32 `db:"mix" cql:"vector<float, 3>"`
}

// KillrVideo v5's similarity queries, declared from their published
// descriptions (killrvideo-data, examples/schema-v5-query-examples.cql,
// "Vector Search (ANN) Queries"): videos and tags nearest a vector, each
// with its cosine similarity as Cassandra computes it, and videos with
// their euclidean or dot product similarity, three reads through one
// index.

// Video is KillrVideo v5's videos table, the columns its similarity
// queries read.
type Video struct {
	_ cqlgen.Pattern `table:"videos" pk:"videoid" comment:""`
	_ cqlgen.Pattern `index:"videos_content_features_idx" col:"content_features" match:"ann" score:"similarity" name:"SimilarVideos" doc:"KillrVideo's similar videos (queries 1, 2, 4 and 5a): the videos whose content features are nearest a vector, each with its cosine similarity"`
	_ cqlgen.Pattern `index:"videos_content_features_idx" col:"content_features" match:"ann" score:"similarity(euclidean)" name:"SimilarVideosEuclidean" doc:"KillrVideo's query 5b: the videos whose content features are nearest a vector, each with its euclidean similarity"`
	_ cqlgen.Pattern `index:"videos_content_features_idx" col:"content_features" match:"ann" score:"similarity(dot_product)" name:"SimilarVideosDotProduct" doc:"KillrVideo's query 5c: the videos whose content features are nearest a vector, each with its dot product similarity"`

	VideoID         gocql.UUID `db:"videoid"`
	Description     string     `db:"description" cqlgen:"ttl, writetime"`
	Name            string     `db:"name"`
	Category        string     `db:"category"`
	ContentFeatures []float32  `db:"content_features" cql:"vector<float, 16>"`
}

// Tag is KillrVideo v5's tags table.
type Tag struct {
	_ cqlgen.Pattern `table:"tags" pk:"tag" comment:""`
	_ cqlgen.Pattern `index:"tags_category_idx" col:"category" doc:"the tags of a category"`
	_ cqlgen.Pattern `index:"tags_vector_idx" col:"tag_vector" match:"ann" score:"similarity" name:"SimilarTags" doc:"KillrVideo's similar tags (query 3): the tags whose vector is nearest one, each with its cosine similarity"`

	Tag       string    `db:"tag"`
	TagVector []float32 `db:"tag_vector" cql:"vector<float, 8>"`
	Category  string    `db:"category"`
}

// Notice is stored in two tables by the write protocol, with a table TTL,
// for the tests of GetTimes on a versioned entity: the TTL and write time
// of its body, and the write time of a frozen set.
type Notice struct {
	_ cqlgen.Pattern `table:"notices,canonical" pk:"id" ttl:"30d"`
	_ cqlgen.Pattern `table:"notices_by_board" pk:"board" ck:"id" ttl:"30d"`

	ID     string   `db:"id"`
	Board  string   `db:"board"`
	Body   string   `db:"body" cqlgen:"ttl, writetime"`
	Labels []string `db:"labels" cql:"frozen<set<text>>" cqlgen:"writetime"`
}
