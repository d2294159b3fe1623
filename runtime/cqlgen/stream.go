package cqlgen

import (
	"context"
	"iter"

	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// Stream reads every row of a paged read, a page at a time, as an
// iterator: rows yields each row with a nil error; cursor gives the
// cursor after the last row rows yielded, which a later Stream (or a
// page read) resumes from with exactly the rows after it.
//
// read is a read method of a generated repository (a pattern's read, a
// read through an index, a scan) bound to its arguments, asked for the
// page at cursor; it must pass on the context it is given, which tells
// the read paths to record where each row of the page lies:
//
//	rows, cursor := cqlgen.Stream(ctx, saved, func(ctx context.Context, c string) (cqlgen.Page[Note], error) {
//		return notes.NotesByUser(ctx, userID, &NotesByUserOptions{Limit: 500, Cursor: c})
//	})
//	for n, err := range rows {
//		if err != nil {
//			return err // yielded once; the sequence ends with it
//		}
//		if done(n) {
//			break // stops paging; no request is left running
//		}
//	}
//	saved = cursor() // after the last row handled: resume from it later
//
// The stream holds one page at a time (the read's Limit rows: 0 is
// DefaultLimit) and reads the next only once the last row of the page
// was yielded, so its memory is flat however many rows the read has. It
// starts at from ("": the read's start). An error, a read's or the
// context's (checked before each row), is yielded once and ends the
// sequence; cursor then still gives the position after the last row
// yielded, so ranging over rows again, or a new Stream from cursor(),
// goes on from there. Ranging over rows again after a break goes on
// likewise; after the read's end it yields nothing.
//
// cursor() is "" until a row was yielded (then from, which is "" for a
// stream from the start). After the last row of the read it is the
// cursor after that row, not "": a stream resumed from it yields the
// rows written after it since, if any. A Stream is for one goroutine.
func Stream[T any](ctx context.Context, from string, read func(ctx context.Context, cursor string) (Page[T], error)) (rows iter.Seq2[T, error], cursor func() string) {
	s := &stream[T]{ctx: ctx, read: read, cursor: from}
	return s.all, s.at
}

type stream[T any] struct {
	ctx  context.Context
	read func(ctx context.Context, cursor string) (Page[T], error)
	// cursor is after the last row yielded, as of the end of the page
	// that held it or of a break; done tells the read ended there.
	cursor string
	done   bool
	// page is the page being yielded, and last the index of its last
	// row yielded: cursor() asked mid-page makes the cursor from them.
	page *base.Positions
	last int
}

func (s *stream[T]) at() string {
	if s.page != nil && s.last >= 0 {
		if c, err := s.page.At(s.last); err == nil {
			return c
		}
	}
	return s.cursor
}

// settle moves the cursor after the last row yielded of the page. A
// cursor that cannot be made (a key value that no longer encodes) leaves
// it at the page's start: rows may come again, none is lost.
func (s *stream[T]) settle() {
	s.cursor = s.at()
	s.page = nil
}

func (s *stream[T]) all(yield func(T, error) bool) {
	var zero T
	var pos base.Positions
	ctx := base.WithPositions(s.ctx, &pos)
	defer func() { s.page = nil }()
	for !s.done {
		if err := s.ctx.Err(); err != nil {
			yield(zero, err)
			return
		}
		pos.Reset()
		pg, err := s.read(ctx, s.cursor)
		if err != nil {
			yield(zero, err)
			return
		}
		if len(pg.Rows) > 0 && (!pos.Set || pos.Rows != len(pg.Rows)) {
			yield(zero, &InputError{Err: ErrInvalidOption, Name: "read", Reason: "its page is not one a generated read method returned under the context Stream gave it: pass that context on to the read"})
			return
		}
		if len(pg.Rows) == 0 && pg.Cursor == s.cursor && pg.Cursor != "" {
			yield(zero, &InputError{Err: ErrInvalidCursor, Name: "read", Reason: "a page with no rows whose cursor is the one it was read at"})
			return
		}
		s.page, s.last = &pos, -1
		for i := range pg.Rows {
			if err := s.ctx.Err(); err != nil {
				s.settle()
				yield(zero, err)
				return
			}
			s.last = i
			if !yield(pg.Rows[i], nil) {
				s.settle()
				return
			}
		}
		if pg.Cursor == "" {
			// The read's end: the cursor stays after its last row.
			s.settle()
			s.done = true
			return
		}
		s.page, s.cursor = nil, pg.Cursor
	}
}
