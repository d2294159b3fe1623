package protocol

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The record of the last changes (cqlgen_writes, docs/protocol.md I9),
// which settle reads to learn whether a lost write applied: how long it
// reaches back, its format, and how a change is appended to it.

// The record keeps every change whose version is within writesSpan of
// the newest one's, and always the last writesKept, but never more than
// writesCap: a lost write is settled as long as the change that replaced
// the version it expected is still listed, which it is for writesSpan
// after it (versions are microsecond timestamps), unless more than
// writesCap changes came in that time. writesSpan covers the land window
// (cqlgen.DefaultLandWindow), the serial reads of settle and a resend
// with an idempotency key some seconds later, with room to spare. Only
// an entity changed more than writesKept times within writesSpan pays
// for a longer record: about 12 bytes a change.
//
// The span is counted in versions, which follow the writers' clocks. A
// writer whose clock runs ahead writes versions far past the last ones,
// and the next change then keeps only the last writesKept; writers after
// it, whose clocks are behind, write versions 2µs apart (nextVersion),
// and keep more, up to writesCap. Either way a record that no longer
// reaches back says "unknown", never a wrong answer: the retention is a
// matter of how long a lost write can be settled, not of what it is told.
const (
	writesKept = 32
	writesSpan = 10 * time.Second
	writesCap  = 1024
)

// The record of the last changes, oldest first: a format byte, the number
// of changes, the first one's version; then per change, its version less
// the one before it (not for the first), the version it replaced (0: no
// row; 1: the change before it; n: its own version less n-1), and its id,
// 8 bytes. About 12 bytes a change: 400 for writesKept changes, 12 KB for
// writesCap. A record of more than writesKept changes is of the same
// format: a cqlgen before the span (which read at most 32) reads it as
// none, so it settles nothing from it (unknown, never wrong), and its
// next change starts the record afresh.
const writesFormat = 1

// newWriteID is a random id for one attempt of a change.
func newWriteID() [8]byte {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return id
}

type writeEntry struct {
	version, prev int64 // prev 0: no row
	id            [8]byte
}

// walkWrites reads a record of the last changes, calling visit with each
// change, oldest first, and the offset in b where it ends; it reports
// whether the record is one it can read whole. visit returning false
// stops the walk (and ok then says nothing of the rest).
func walkWrites(b []byte, visit func(i int, e writeEntry, end int) bool) (n int, ok bool) {
	if len(b) < 2 || b[0] != writesFormat {
		return 0, false
	}
	r := b[1:]
	count, ok := value.Uvarint(&r)
	if !ok || count == 0 || count > writesCap {
		return 0, false
	}
	first, ok := value.Uvarint(&r)
	if !ok || first > math.MaxInt64 {
		return 0, false
	}
	version, before := int64(first), int64(0)
	for i := range int(count) {
		if i > 0 {
			d, ok := value.Uvarint(&r)
			if !ok || d == 0 || d > uint64(math.MaxInt64-version) {
				return 0, false
			}
			version += int64(d)
		}
		p, ok := value.Uvarint(&r)
		if !ok || len(r) < 8 {
			return 0, false
		}
		w := writeEntry{version: version}
		switch {
		case p == 1 && i == 0:
			return 0, false
		case p == 1:
			w.prev = before
		case p > 1:
			if p-1 > uint64(version) {
				return 0, false
			}
			w.prev = version - int64(p-1)
		}
		copy(w.id[:], r)
		r = r[8:]
		before = version
		if visit != nil && !visit(i, w, len(b)-len(r)) {
			return i + 1, true
		}
	}
	if len(r) != 0 {
		return 0, false
	}
	return int(count), true
}

// decodeWrites reads a record of the last changes; a record it cannot
// read (none yet, or not written by this protocol) lists nothing.
func decodeWrites(b []byte) []writeEntry {
	var out []writeEntry
	if _, ok := walkWrites(b, func(_ int, e writeEntry, _ int) bool {
		out = append(out, e)
		return true
	}); !ok {
		return nil
	}
	return out
}

// appendWrite is the record of the last changes after the change w: the
// record's changes within writesSpan of w's version (at least the last
// writesKept, at most writesCap, w included), then w. The changes it keeps
// are copied as they are, but for the first, whose version is written
// whole.
func appendWrite(record []byte, w lostWrite) []byte {
	var prev int64
	if w.found {
		prev = w.old
	}
	// The number of changes, those older than the span, and the last.
	var last writeEntry
	older := 0
	cutoff := w.ts - writesSpan.Microseconds()
	n, ok := walkWrites(record, func(_ int, e writeEntry, _ int) bool {
		if e.version < cutoff {
			older++
		}
		last = e
		return true
	})
	if !ok || last.version >= w.ts {
		n = 0 // not ours to continue: start afresh
	}
	// Keep from the change at index from on.
	from := min(older, max(n+1-writesKept, 0))
	from = max(from, n+1-writesCap)
	if from >= n {
		b := append(make([]byte, 0, 2+3*binary.MaxVarintLen64+8), writesFormat, 1)
		b = binary.AppendUvarint(b, uint64(w.ts))
		b = appendPrev(b, w.ts, prev, false)
		return append(b, w.id[:]...)
	}
	// The first change kept, and where it ends: what follows is copied.
	var first writeEntry
	var end int
	walkWrites(record, func(i int, e writeEntry, at int) bool {
		first, end = e, at
		return i < from
	})
	b := make([]byte, 0, len(record)-end+7*binary.MaxVarintLen64+16)
	b = append(b, writesFormat)
	b = binary.AppendUvarint(b, uint64(n-from+1))
	b = binary.AppendUvarint(b, uint64(first.version))
	b = appendPrev(b, first.version, first.prev, false)
	b = append(b, first.id[:]...)
	b = append(b, record[end:]...)
	b = binary.AppendUvarint(b, uint64(w.ts-last.version))
	b = appendPrev(b, w.ts, prev, prev == last.version)
	return append(b, w.id[:]...)
}

// appendPrev appends the version a change at version replaced: 0 for no
// row, 1 for the change listed before it (before), else its distance.
func appendPrev(b []byte, version, prev int64, before bool) []byte {
	switch {
	case prev == 0:
		return append(b, 0)
	case before:
		return append(b, 1)
	default:
		return binary.AppendUvarint(b, uint64(version-prev)+1)
	}
}
