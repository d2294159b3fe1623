package reads

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
)

// Scans: the typed full-table read of a table declared with the table
// option scan. A scan reads one share of the token ring, (lo, hi] of
// tokenRange(Split, Of), with the table's ScanRows statement
// (token(pk) > ? AND token(pk) <= ?), a page at a time. Its pages are the
// driver's: the cursor seals the paging state Cassandra returned, so a
// partition larger than a page, or two partitions of one token, resume
// exactly where the last page ended, which "token(pk) > the last token"
// could not. The work is not generic (ScanRows): it is handed a function
// that scans one row into the caller's page (see Scan).

// scanCursor is the kind of a scan's cursor: its key holds one value, the
// paging state, and its fingerprint the table and the share.
const scanCursor byte = 's'

// Scan is a scan method: one page of the rows of t in the share o names,
// each read by scan (which may skip rows, as a source of truth's ScanLive
// skips graves). It is the one part compiled per entity (see
// docs/architecture.md, the shape of this package): rows come from the
// read paths' arena and go out through pageOf, as a read's do.
func Scan[T any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, o *cqlgen.ScanOptions, entity string, t *desc.Table, scan func(cqldriver.Iter, *T) bool) (cqlgen.Page[T], error) {
	pg, err := scanRows(ctx, s, base, o, entity, t, RowArena[*T](), scan)
	return PageOf(ctx, pg), err
}

// scanRows is Scan over P = *T.
func scanRows[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, o *cqlgen.ScanOptions, entity string, t *desc.Table, newRow func() P, scan func(cqldriver.Iter, P) bool) (Page[P], error) {
	var rows []P
	sc, err := ScanRows(ctx, s, base, o, entity, t, func(it cqldriver.Iter) bool {
		p := newRow()
		if !scan(it, p) {
			return false
		}
		rows = append(rows, p)
		return true
	})
	if err != nil {
		return Page[P]{}, err
	}
	// The rows a cursor of a stream said to skip were read again, and
	// go now.
	rows = rows[min(sc.Skip, len(rows)):]
	pg := Page[P]{Rows: rows, Cursor: sc.Cursor}
	if len(rows) > 0 {
		pg.pos = func(i int, _ P) (string, error) { return sc.At(i), nil }
	}
	return pg, nil
}

// Scanned is what a page of a scan read: the cursor after it ("" once
// the share is read to its end), and how many of the rows handed to the
// row function come before the page, from a cursor of a stream that
// stopped within a page of the driver's (the caller drops them).
type Scanned struct {
	Cursor string
	Skip   int

	fp     uint64
	sealer *Sealer
	starts []scanStart
}

// scanStart is where one request of a page began: its paging state (nil
// at the share's start) and the index, among the rows read, skipped ones
// included, of its first row.
type scanStart struct {
	state []byte
	first int
}

// At is the cursor after the i-th row of the page, skipped rows not
// counted: the paging state of the request that read it, and how many
// rows of that request to skip. A resumed scan reads that request's
// rows again and drops as many, so it lands after the row as long as
// they did not change meanwhile (a scan is no snapshot; see
// docs/repositories.md, "Streams").
func (sc *Scanned) At(i int) string {
	j := i + sc.Skip
	k := len(sc.starts) - 1
	for k > 0 && sc.starts[k].first > j {
		k--
	}
	st := sc.starts[k]
	skip := binary.AppendUvarint(nil, uint64(j-st.first+1))
	return encodeCursor(sc.fp, cursor{kind: scanCursor, key: [][]byte{st.state, skip}}, sc.sealer)
}

// ScanRows runs one page of a scan, type-erased: row reads the next row
// of an iterator into the caller's page and reports whether there was
// one. It returns the cursor after the page, "" once the share is read to
// its end.
func ScanRows(ctx context.Context, s cqlgen.Session, base cqlgen.Options, o *cqlgen.ScanOptions, entity string, t *desc.Table, row func(cqldriver.Iter) bool) (_ Scanned, err error) {
	defer desc.Observe(&ctx, s, entity, "Scan"+t.Spec.Pattern).End(&err)
	if o == nil {
		o = &cqlgen.ScanOptions{}
	}
	if t.ScanRows == nil {
		return Scanned{}, fmt.Errorf("cqlgen: %s has no scan statement: regenerate the package", t.Spec.Name)
	}
	lo, hi, err := share(o.Split, o.Of)
	if err != nil {
		return Scanned{}, err
	}
	limit, err := pageLimit(o.Limit, base.MaxLimit)
	if err != nil {
		return Scanned{}, err
	}
	if base.ScanRate < 0 {
		return Scanned{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "ScanRate", Reason: fmt.Sprintf("%d rows a second is negative", base.ScanRate)}
	}
	return scanPage(ctx, s, base, o.Cursor, limit, t, lo, hi, scanFingerprint(t, o.Split, o.Of), row)
}

// scanPage reads up to limit rows of t whose tokens are in (lo, hi], from
// the start or after cursor, and returns the cursor after them ("" at the
// range's end). fp is the fingerprint of the scan the cursor belongs to.
//
// A cursor holds a paging state, Cassandra's, and, when a stream stopped
// within a request's rows (Scanned.At), how many rows after that state
// to skip: those rows are read again, handed to row, and counted in
// Scanned.Skip for the caller to drop.
func scanPage(ctx context.Context, s cqlgen.Session, base cqlgen.Options, cur string, limit int, t *desc.Table, lo, hi int64, fp uint64, row func(cqldriver.Iter) bool) (Scanned, error) {
	sl := sealerFor(base.CursorKey)
	q := cqldriver.Query{Stmt: t.ScanRows, Values: []any{lo, hi}}
	out := Scanned{fp: fp, sealer: sl}
	if cur != "" {
		c, err := decodeCursor(t.Spec.Pattern, fp, scanCursor, cur, sl)
		if err != nil {
			return Scanned{}, err
		}
		switch {
		case len(c.key) == 1 && len(c.key[0]) > 0:
			q.PageState = c.key[0]
		case len(c.key) == 2:
			v, n := binary.Uvarint(c.key[1])
			// A request reads no more rows than the largest page.
			if n <= 0 || n != len(c.key[1]) || v > uint64(max(base.MaxLimit, cqlgen.DefaultMaxLimit)) {
				return Scanned{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "corrupted"}
			}
			if len(c.key[0]) > 0 {
				q.PageState = c.key[0]
			}
			out.Skip = int(v)
		default:
			return Scanned{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "corrupted"}
		}
	}
	resumed := q.PageState != nil
	want := limit + out.Skip // the rows to read, skipped ones included
	n := 0
	for n < want {
		q.PageSize = want - n
		if l := base.ScanLimiter; l != nil {
			if err := l.WaitN(ctx, q.PageSize); err != nil {
				return Scanned{}, err
			}
		}
		out.starts = append(out.starts, scanStart{state: q.PageState, first: n})
		it := s.Iter(ctx, q)
		for n < want && row(it) {
			n++
		}
		state := it.PageState()
		if err := it.Close(); err != nil {
			if resumed && refusedState(err) {
				// The paging state came from the caller's cursor, which
				// passed its checksum: forged, or from another cluster.
				return Scanned{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "Cassandra refused its paging state: " + err.Error()}
			}
			return Scanned{}, err
		}
		resumed = false
		if len(state) == 0 {
			return out, nil
		}
		q.PageState = state
	}
	out.Cursor = encodeCursor(fp, cursor{kind: scanCursor, key: [][]byte{q.PageState}}, sl)
	return out, nil
}

// refusedState reports the error Cassandra replies to a paging state it
// cannot read: a protocol error, or an invalid request.
func refusedState(err error) bool {
	var de *cqldriver.DriverError
	return errors.As(err, &de) && de.Kind == cqldriver.ErrorServer && (de.Code == cqldriver.CodeProtocol || de.Code == cqldriver.CodeInvalid)
}

// share is the token range of the split-th of of shares: (lo, hi], the
// whole ring for of 0 or 1.
func share(split, of int) (lo, hi int64, err error) {
	if of == 0 && split == 0 {
		of = 1
	}
	if of < 1 || split < 0 || split >= of {
		return 0, 0, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Split", Reason: fmt.Sprintf("share %d of %d: Split must be at least 0 and below Of", split, of)}
	}
	lo, hi = desc.TokenRange(split, of)
	return lo, hi, nil
}

// scanFingerprint identifies a scan: its table, its pattern and its
// share, so that a cursor resumes only the scan it came from.
func scanFingerprint(t *desc.Table, split, of int) uint64 {
	if of == 0 {
		of = 1
	}
	h := fnv.New64a()
	h.Write([]byte(t.Spec.Name))
	h.Write([]byte{0})
	h.Write([]byte(t.Spec.Pattern))
	h.Write([]byte{0, scanCursor})
	h.Write(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(split)), uint64(of)))
	return h.Sum64()
}
