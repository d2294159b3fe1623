package cqlgen

// DefaultLimit is the page size of a read that gives no limit.
const DefaultLimit = 100

// DefaultMaxLimit is the largest page a read may ask for unless the
// repository says otherwise (WithMaxLimit). A read over N hash buckets
// fetches up to Limit+1 rows from each, so the bound keeps one call's
// work and memory bounded.
const DefaultMaxLimit = 10_000

// DefaultLookBack is how many time buckets a read walks back, from the one
// it starts at, when it gives no look-back of its own.
const DefaultLookBack = 30

// Page is one page of a read: rows in clustering order, and the cursor
// that continues after the last of them ("" when there is nothing more).
// Pass the cursor back in the read's options to get the next page; it is
// opaque, URL-safe, and refused by any other read (another access pattern
// or another partition key) with an *InputError (ErrInvalidCursor).
type Page[T any] struct {
	Rows   []T
	Cursor string
}

// Inserted is the outcome of an InsertIfAbsent (INSERT ... IF NOT EXISTS)
// of an entity stored in one table.
type Inserted[T any] struct {
	// Applied tells that the entity is now the one the call wrote: this
	// call created it, or found it already holding exactly what the call
	// writes (Again).
	Applied bool
	// Again tells that the row was already there, holding every value the
	// call writes, so the call did not write it: most likely the call's
	// own earlier attempt, whose reply was lost, and then not a conflict.
	// It cannot tell that attempt from another writer's identical insert;
	// when that matters, send the call with cqlgen.WithIdempotencyKey,
	// whose record tells them apart.
	Again bool
	// Current is the row found, when the call did not create it: the
	// other entity's when Applied is false, the identical one when Again
	// is true; nil when the call created it.
	Current *T
}

// Scored is a row an ANN read declared with score:"similarity" returns:
// the row, and the similarity Cassandra computed between its vector and
// the one searched (similarity_cosine, similarity_dot_product or
// similarity_euclidean in the SELECT). Higher is nearer, and the rows come
// nearest first when the score's function is the index's. Cosine is
// (1+cos θ)/2, in [0, 1]; dot product (1+a·b)/2, in [0, 1] for vectors of
// length 1; euclidean 1/(1+d²), in (0, 1] (docs/grammar.md, Vectors and
// similarity search).
type Scored[T any] struct {
	Row   T
	Score float32
}
