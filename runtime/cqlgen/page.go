package cqlgen

// DefaultLimit is the page size of a read that gives no limit.
const DefaultLimit = 100

// DefaultLookBack is how many time buckets a read walks back, from the one
// it starts at, when it gives no look-back of its own.
const DefaultLookBack = 30

// Page is one page of a read: rows in clustering order, and the cursor
// that continues after the last of them ("" when there is nothing more).
// Pass the cursor back in the read's options to get the next page; it is
// opaque, URL-safe, and refused by any other read (another access pattern
// or another partition key) with an *InvalidCursorError.
type Page[T any] struct {
	Rows   []T
	Cursor string
}
