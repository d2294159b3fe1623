package reads

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []cursor{
		{kind: plainCursor, key: [][]byte{{1, 2}, {}}},
		{kind: hashCursor, bucket: 99, key: [][]byte{{0, 0, 0, 7}, []byte("trk")}},
		{kind: timeCursor, at: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), oldest: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), key: [][]byte{{9}}},
	} {
		s := encodeCursor(42, c, nil)
		got, err := decodeCursor("P", 42, c.kind, s, nil)
		if err != nil {
			t.Fatalf("%c: %v", c.kind, err)
		}
		if got.kind != c.kind || got.bucket != c.bucket || !got.at.Equal(c.at) || !got.oldest.Equal(c.oldest) || len(got.key) != len(c.key) {
			t.Errorf("%c: got %+v, want %+v", c.kind, got, c)
		}
		for i := range c.key {
			if !slices.Equal(got.key[i], c.key[i]) {
				t.Errorf("%c: key %d = %v, want %v", c.kind, i, got.key[i], c.key[i])
			}
		}
		// Another query, another kind, or one flipped character: refused.
		if _, err := decodeCursor("P", 43, c.kind, s, nil); !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("%c: foreign fingerprint: %v", c.kind, err)
		}
		if _, err := decodeCursor("P", 42, 'x', s, nil); !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("%c: foreign kind: %v", c.kind, err)
		}
		b := []byte(s)
		b[len(b)/2] ^= 1
		if _, err := decodeCursor("P", 42, c.kind, string(b), nil); !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("%c: flipped bit: %v", c.kind, err)
		}
	}
}

// FuzzDecodeCursor: no input makes decoding panic; everything it refuses
// is an ErrInvalidCursor.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(1, cursor{kind: hashCursor, bucket: 3, key: [][]byte{{1}}}, nil))
	f.Add(encodeCursor(1, cursor{kind: timeCursor, key: nil}, nil))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		for _, kind := range []byte{plainCursor, hashCursor, timeCursor} {
			if _, err := decodeCursor("P", 1, kind, s, nil); err != nil {
				var ic *cqlgen.InputError
				if !(errors.As(err, &ic) && ic.Err == cqlgen.ErrInvalidCursor) {
					t.Fatalf("untyped error %v", err)
				}
			}
		}
	})
}

func TestMerge(t *testing.T) {
	lists := [][]int{{1, 4, 4, 9}, {}, {2, 4, 10}, {0}}
	got, from := Merge(lists, func(a, b *int) int { return *a - *b }, 6)
	if want := []int{0, 1, 2, 4, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	// Ties come in list order: the 4s from list 0 before the one from list 2.
	if want := []int{3, 0, 2, 0, 0, 2}; !slices.Equal(from, want) {
		t.Errorf("sources %v, want %v", from, want)
	}
	if got, _ := Merge(lists, func(a, b *int) int { return *a - *b }, 100); len(got) != 8 {
		t.Errorf("unbounded merge gave %d rows, want 8", len(got))
	}
}
