package cqlgenimpl_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// Cursors are the client's: a forged one is refused, typed, before
// anything is sent, and with a cursor key they can be neither forged nor
// read.

// reCRC re-encodes a forged cursor body with a valid checksum.
func reCRC(body []byte) string {
	return base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint32(append([]byte(nil), body...), crc32.ChecksumIEEE(body)))
}

func body(t *testing.T, cursor string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatal(err)
	}
	return b[:len(b)-4]
}

func TestForgedCursors(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(40, 3, 11))
	start := day0.AddDate(0, 0, 2).Add(time.Hour)

	// A time cursor whose oldest bucket lies decades back: without the
	// check, one read would walk thousands of empty days.
	p, err := repo.ReadingsByDay(ctx, "s1", &fixture.ReadingsByDayOptions{Start: start, LookBack: 3, Limit: 2})
	if err != nil || p.Cursor == "" {
		t.Fatal(p, err)
	}
	b := body(t, p.Cursor)
	at, n1 := binary.Varint(b[10:])
	_, n2 := binary.Varint(b[10+n1:])
	forged := binary.AppendVarint(append([]byte(nil), b[:10+n1]...), time.UnixMicro(at).AddDate(-40, 0, 0).UnixMicro())
	forged = append(forged, b[10+n1+n2:]...)
	before := len(s.Calls())
	_, err = repo.ReadingsByDay(ctx, "s1", &fixture.ReadingsByDayOptions{Start: start, LookBack: 3, Cursor: reCRC(forged)})
	if !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("a cursor walking 40 years back: %v", err)
	}
	if n := len(s.Calls()) - before; n != 0 {
		t.Errorf("the forged cursor sent %d queries", n)
	}

	// A key value of the wrong size for its type (the timestamp of a
	// readings_by_kind cursor cut to 3 bytes): refused before it reaches
	// the server, which would answer with an untyped error.
	p, err = repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: 3})
	if err != nil || p.Cursor == "" {
		t.Fatal(p, err)
	}
	b = body(t, p.Cursor)
	keys := b[10:] // plain cursor: key count, then each key
	count, n := binary.Uvarint(keys)
	if count != 3 {
		t.Fatalf("cursor with %d keys", count)
	}
	r := keys[n:]
	l0, m := binary.Uvarint(r)
	kind := r[m : m+int(l0)]
	r = r[m+int(l0):]
	l1, m := binary.Uvarint(r)
	rest := r[m+int(l1):]
	bad := append([]byte(nil), b[:10]...)
	bad = binary.AppendUvarint(bad, 3)
	bad = binary.AppendUvarint(bad, uint64(len(kind)))
	bad = append(bad, kind...)
	bad = binary.AppendUvarint(bad, 3)
	bad = append(bad, 1, 2, 3)
	bad = append(bad, rest...)
	before = len(s.Calls())
	_, err = repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Cursor: reCRC(bad)})
	if !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("a key of the wrong size: %v", err)
	}
	if n := len(s.Calls()) - before; n != 0 {
		t.Errorf("the malformed cursor sent %d queries", n)
	}
}

func TestSealedCursors(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	key := []byte("a secret of the application")
	repo := fixture.NewReadingRepo(s, cqlgen.WithCursorKey(key))
	rows := readings(30, 1, 12)
	for i := range rows {
		rows[i].Kind = "someone@example.com"
	}
	insertAll(t, repo.Insert, rows)
	got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: 4, Cursor: c})
	})
	if len(got) != 30 {
		t.Errorf("paging with sealed cursors read %d rows, want 30", len(got))
	}
	p, err := repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(p.Cursor)
	if bytes.Contains(raw, []byte("example.com")) {
		t.Error("a sealed cursor shows its key values")
	}
	// Another key, an unsealed repository, and a flipped bit: refused.
	other := fixture.NewReadingRepo(s, cqlgen.WithCursorKey([]byte("another")))
	plain := fixture.NewReadingRepo(s)
	flipped := []byte(p.Cursor)
	flipped[len(flipped)/2] ^= 1
	for name, read := range map[string]func() error{
		"another key": func() error {
			_, err := other.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Cursor: p.Cursor})
			return err
		},
		"no key": func() error {
			_, err := plain.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Cursor: p.Cursor})
			return err
		},
		"flipped bit": func() error {
			_, err := repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Cursor: string(flipped)})
			return err
		},
	} {
		if err := read(); !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// And a repository with a key refuses an unsealed cursor.
	q, err := plain.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Cursor: q.Cursor}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("an unsealed cursor: %v", err)
	}
}
