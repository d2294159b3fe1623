package cqlgen

// DefaultMaxKeys is the most keys one multi-get (a repository's GetMany)
// may ask for, unless the repository says otherwise (WithMaxKeys). A
// multi-get is one query, key IN (...): the coordinator reads every
// partition and holds every row until it answers, so the bound keeps one
// call's work on the node, and its memory, bounded.
const DefaultMaxKeys = 100

// WithMaxKeys bounds the keys a multi-get may ask for at once.
func WithMaxKeys(n int) Option { return func(o *Options) { o.MaxKeys = n } }

// Found is what a multi-get found: for each key asked, in the order given,
// its entity, and the keys that have none.
type Found[T any] struct {
	// Rows[i] is the entity of the i-th key, nil when there is none. A key
	// given twice gets the same entity twice.
	Rows []*T
	// Missing lists, in order, the indexes of the keys with no entity.
	Missing []int
}
