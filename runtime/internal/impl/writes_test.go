package impl

import "testing"

// The record of the last changes settles a lost write while it reaches
// back to the version the write expected, and only then: applied when
// listed, not applied when another change replaced that version, unknown
// once more than writesKept changes came since.
// Checks invariant I9: a lost write is settled, never guessed.
func TestRecordOfTheLastChangesSettles(t *testing.T) {
	ours := lostWrite{found: true, old: 100, ts: 200, id: [8]byte{1}}
	rival := lostWrite{found: true, old: 100, ts: 200, id: [8]byte{2}} // same version, another writer
	chain := func(first lostWrite, more int) (record []byte, version int64) {
		record, version = appendWrite(nil, first), first.ts
		for i := range more {
			next := lostWrite{found: true, old: version, ts: version + 1500, id: [8]byte{byte(10 + i)}}
			record, version = appendWrite(record, next), next.ts
		}
		return record, version
	}
	for _, c := range []struct {
		name          string
		first         lostWrite
		more          int
		applied, know bool
	}{
		{"ours last", ours, 0, true, true},
		{"ours, then others", ours, writesKept - 1, true, true},
		{"ours, then too many others", ours, writesKept, false, false},
		{"a rival on the same version and timestamp", rival, 0, false, true},
		{"a rival, then others", rival, writesKept - 1, false, true},
		{"a rival, then too many others", rival, writesKept, false, false},
	} {
		record, version := chain(c.first, c.more)
		if got := len(decodeWrites(record)); got != min(c.more+1, writesKept) {
			t.Errorf("%s: the record lists %d changes, want %d", c.name, got, min(c.more+1, writesKept))
		}
		applied, known, _ := settleOutcome(ours, true, version, record)
		if applied != c.applied || known != c.know {
			t.Errorf("%s: applied %v, known %v; want %v, %v", c.name, applied, known, c.applied, c.know)
		}
	}
	// Still at the version it expected: not applied, record or none.
	if applied, known, _ := settleOutcome(ours, true, 100, nil); applied || !known {
		t.Errorf("row still at the expected version: applied %v, known %v", applied, known)
	}
	// A creation: no row means not applied; a row created by another
	// writer (its change replaced "no row") too.
	create := lostWrite{ts: 50, id: [8]byte{3}}
	if applied, known, _ := settleOutcome(create, false, 0, nil); applied || !known {
		t.Errorf("no row after a lost creation: applied %v, known %v", applied, known)
	}
	other := appendWrite(nil, lostWrite{ts: 50, id: [8]byte{4}})
	if applied, known, _ := settleOutcome(create, true, 50, other); applied || !known {
		t.Errorf("a row another writer created: applied %v, known %v", applied, known)
	}
	// A full record, changes 1.5ms apart, stays small; cut short, it lists
	// nothing rather than something wrong.
	full, _ := chain(lostWrite{found: true, old: 1_795_655_995_950_526, ts: 1_795_655_995_952_033, id: [8]byte{1}}, writesKept-1)
	if len(full) > 450 {
		t.Errorf("a full record of %d changes takes %d bytes", writesKept, len(full))
	}
	for n := range len(full) - 1 {
		if got := decodeWrites(full[:n]); got != nil {
			t.Errorf("the record cut to %d bytes decodes to %d changes", n, len(got))
		}
	}
	// A record of another format lists nothing.
	if got := decodeWrites([]byte{9, 1, 2}); got != nil {
		t.Errorf("a foreign record decodes to %v", got)
	}
	// The lost write, as an idempotency key records it.
	if w, ok := decodeLost(ours.encode()); !ok || w != ours {
		t.Errorf("lost write round trip: %+v, %v", w, ok)
	}
}
