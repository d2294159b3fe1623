package protocol

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// chain is the record after first and then more changes of the entity,
// each gap microseconds after the one before, and the last version.
func chain(first lostWrite, more int, gap int64) (record []byte, version int64) {
	record, version = appendWrite(nil, first), first.ts
	for i := range more {
		next := lostWrite{found: true, old: version, ts: version + gap, id: [8]byte{byte(10 + i), byte(i >> 8)}}
		record, version = appendWrite(record, next), next.ts
	}
	return record, version
}

// The record of the last changes settles a lost write while it reaches
// back to the version the write expected, and only then: applied when
// listed, not applied when another change replaced that version, unknown
// once the change that replaced it is gone from the record: older than
// writesSpan before the last change and more than writesKept changes
// ago, or more than writesCap changes ago.
// Checks invariant I9: a lost write is settled, never guessed.
func TestRecordOfTheLastChangesSettles(t *testing.T) {
	ours := lostWrite{found: true, old: 100, ts: 200, id: [8]byte{1}}
	rival := lostWrite{found: true, old: 100, ts: 200, id: [8]byte{2}} // same version, another writer
	span := writesSpan.Microseconds()
	second := time.Second.Microseconds()
	for _, c := range []struct {
		name          string
		first         lostWrite
		more          int
		gap           int64 // µs between changes
		listed        int   // changes the record lists at the end
		applied, know bool
	}{
		{"ours last", ours, 0, 1500, 1, true, true},
		{"ours, then others", ours, writesKept - 1, 1500, writesKept, true, true},
		// A rival at full speed: 1,000 changes in 1.5s, all within the span.
		{"ours, then a busy rival", ours, 1000, 1500, 1001, true, true},
		{"a rival, then a busy rival", rival, 1000, 1500, 1001, false, true},
		// One change a second: the span holds 11, the floor 32.
		{"ours, then slow others", ours, writesKept - 1, second, writesKept, true, true},
		{"ours, then too many slow others", ours, writesKept, second, writesKept, false, false},
		{"a rival, then too many slow others", rival, writesKept, second, writesKept, false, false},
		// 200ms apart: 50 changes in 10s, all kept; 400ms apart, 40
		// changes in 16s, only the last 10s.
		{"ours, then others within the span", ours, 50, span / 50, 51, true, true},
		{"ours, then others past the span", ours, 40, span / 25, writesKept, false, false},
		// Faster than the cap: only the last writesCap.
		{"ours, then as many others as the cap keeps", ours, writesCap - 1, 2, writesCap, true, true},
		{"ours, then more others than the cap keeps", ours, writesCap, 2, writesCap, false, false},
		{"a rival, then more others than the cap keeps", rival, writesCap, 2, writesCap, false, false},
	} {
		record, version := chain(c.first, c.more, c.gap)
		if got := len(decodeWrites(record)); got != c.listed {
			t.Errorf("%s: the record lists %d changes, want %d", c.name, got, c.listed)
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
	// A record of writesKept changes 1.5ms apart stays small, and one at
	// the cap about 12 bytes a change; cut short, a record lists nothing
	// rather than something wrong.
	start := lostWrite{found: true, old: 1_795_655_995_950_526, ts: 1_795_655_995_952_033, id: [8]byte{1}}
	kept, _ := chain(start, writesKept-1, 1500)
	if len(kept) > 450 {
		t.Errorf("a record of %d changes takes %d bytes", writesKept, len(kept))
	}
	full, _ := chain(start, writesCap-1, 1500)
	if got := len(decodeWrites(full)); got != writesCap || len(full) > 12*writesCap+16 {
		t.Errorf("a full record lists %d changes in %d bytes, want %d in at most %d", got, len(full), writesCap, 12*writesCap+16)
	}
	for n := range len(full) - 1 {
		if got := decodeWrites(full[:n]); got != nil {
			t.Errorf("the record cut to %d bytes decodes to %d changes", n, len(got))
		}
	}
	// A record of another format lists nothing; nor does one that lists
	// more changes than the cap.
	if got := decodeWrites([]byte{9, 1, 2}); got != nil {
		t.Errorf("a foreign record decodes to %v", got)
	}
	if over := append([]byte{writesFormat}, 0x81, 0x08); decodeWrites(append(over, full[3:]...)) != nil {
		t.Errorf("a record of %d changes decodes", writesCap+1)
	}
	// The lost write, as an idempotency key records it.
	if w, ok := decodeLost(ours.encode()); !ok || w != ours {
		t.Errorf("lost write round trip: %+v, %v", w, ok)
	}
}

// appendWrite copies the changes it keeps as they are: on random
// histories (gaps from 2µs to 3s, creations, deletes and changes that do
// not follow the one before), the record it writes decodes to exactly the
// changes the retention rule keeps, computed apart from the encoding.
func TestRecordKeepsWhatTheRuleSays(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 1))
	span := writesSpan.Microseconds()
	for h := range 40 {
		var record []byte
		var want []writeEntry
		version := int64(1_795_655_995_950_526)
		for i := range 1500 {
			var gap int64
			switch rng.IntN(4) {
			case 0:
				gap = 2 + rng.Int64N(100)
			case 1:
				gap = 1000 + rng.Int64N(5000)
			case 2:
				gap = rng.Int64N(300_000)
			default:
				gap = rng.Int64N(3_000_000)
			}
			w := lostWrite{found: true, old: version, ts: version + 2 + gap}
			w.id = [8]byte{byte(h), byte(i), byte(i >> 8), byte(rng.IntN(256))}
			switch rng.IntN(20) {
			case 0:
				w.found, w.old = false, 0 // created again, from no row
			case 1:
				w.old = version - rng.Int64N(version/2) // replaced an older version
			}
			record = appendWrite(record, w)
			prev := w.old
			if !w.found {
				prev = 0
			}
			want = append(want, writeEntry{version: w.ts, prev: prev, id: w.id})
			from := 0
			for from < len(want) && want[from].version < w.ts-span {
				from++
			}
			from = min(from, max(len(want)-writesKept, 0))
			from = max(from, len(want)-writesCap)
			want = want[from:]
			if got := decodeWrites(record); !slices.Equal(got, want) {
				t.Fatalf("history %d, change %d: the record lists %d changes, want %d", h, i, len(got), len(want))
			}
			version = w.ts
		}
	}
}

// The cost of a change's record at the cap: decoding it (settle) and
// appending to it (every change). go test -bench Record -benchmem
// ./runtime/internal/impl
func BenchmarkRecordAppendFull(b *testing.B) {
	full, version := chain(lostWrite{found: true, old: 1_795_655_995_950_526, ts: 1_795_655_995_952_033, id: [8]byte{1}}, writesCap-1, 1500)
	w := lostWrite{found: true, old: version, ts: version + 1500, id: [8]byte{7}}
	b.SetBytes(int64(len(full)))
	for b.Loop() {
		_ = appendWrite(full, w)
	}
	b.ReportMetric(float64(len(full)), "record-bytes")
}

func BenchmarkRecordAppendKept(b *testing.B) {
	kept, version := chain(lostWrite{found: true, old: 1_795_655_995_950_526, ts: 1_795_655_995_952_033, id: [8]byte{1}}, writesKept-1, 1_000_000)
	w := lostWrite{found: true, old: version, ts: version + 1_000_000, id: [8]byte{7}}
	for b.Loop() {
		_ = appendWrite(kept, w)
	}
	b.ReportMetric(float64(len(kept)), "record-bytes")
}

func BenchmarkRecordDecodeFull(b *testing.B) {
	full, _ := chain(lostWrite{found: true, old: 1_795_655_995_950_526, ts: 1_795_655_995_952_033, id: [8]byte{1}}, writesCap-1, 1500)
	b.SetBytes(int64(len(full)))
	for b.Loop() {
		_ = decodeWrites(full)
	}
}
