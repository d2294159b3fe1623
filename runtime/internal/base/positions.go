package base

import "context"

// Positions is how a stream (cqlgen.Stream) learns the cursor after any
// row of the page a read method returns, where the page itself carries
// only the cursor after its last row. The stream hands its read a
// context that carries a Positions; the read paths record into it, as
// they return a page, a function giving the cursor after the page's i-th
// row. Recording costs nothing per row: a cursor is made only when the
// stream is asked for one mid-page.
type Positions struct {
	// Rows is the number of rows of the page recorded; At(i) for i in
	// 0..Rows-1 is the cursor after its i-th row.
	Rows int
	At   func(i int) (string, error)
	// Set tells that a read recorded its page since the last Reset.
	Set bool
}

// Reset forgets the page recorded.
func (p *Positions) Reset() { *p = Positions{} }

type positionsKey struct{}

// WithPositions returns ctx carrying p, for the read paths to record
// into.
func WithPositions(ctx context.Context, p *Positions) context.Context {
	return context.WithValue(ctx, positionsKey{}, p)
}

// RecordPositions records, in the Positions ctx carries (none: nothing
// is done), the page of rows rows whose cursors at gives.
func RecordPositions(ctx context.Context, rows int, at func(i int) (string, error)) {
	if p, _ := ctx.Value(positionsKey{}).(*Positions); p != nil {
		*p = Positions{Rows: rows, At: at, Set: true}
	}
}
