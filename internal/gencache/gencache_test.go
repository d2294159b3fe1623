package gencache

import (
	"bytes"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"testing"
	"time"
)

type node struct {
	Name  string
	Pos   token.Position
	Next  *node
	Tags  map[string]int
	Go    types.Type
	cache []string `cache:"-"`
	n     int
}

func key(t *testing.T, v any) Key {
	t.Helper()
	h := NewHasher("test")
	h.Add(v)
	k, err := h.Sum()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A key changes with every field, exported or not, but positions and the
// fields tagged cache:"-"; cycles end; what it cannot write is an error.
func TestHasher(t *testing.T) {
	base := func() *node {
		a := &node{Name: "a", Pos: token.Position{Filename: "x.go", Line: 3}, Tags: map[string]int{"x": 1, "y": 2}, Go: types.Typ[types.Int64], n: 1}
		a.Next = &node{Name: "b", Next: a}
		return a
	}
	k := key(t, base())
	if k != key(t, base()) {
		t.Fatal("two equal values hash apart")
	}
	same := []func(*node){
		func(a *node) { a.Pos.Line = 40 },
		func(a *node) { a.Next.Pos = token.Position{Filename: "y.go", Line: 1} },
		func(a *node) { a.cache = []string{"derived"} },
	}
	for i, f := range same {
		a := base()
		f(a)
		if key(t, a) != k {
			t.Errorf("same %d: the key changed", i)
		}
	}
	differ := []func(*node){
		func(a *node) { a.Name = "A" },
		func(a *node) { a.n = 2 },
		func(a *node) { a.Tags["z"] = 0 },
		func(a *node) { a.Tags["x"] = 2 },
		func(a *node) { a.Go = types.Typ[types.Int32] },
		func(a *node) { a.Next.Name = "c" },
		func(a *node) { a.Next.Next = nil },
		func(a *node) { a.Next.Next = a.Next },
	}
	for i, f := range differ {
		a := base()
		f(a)
		if key(t, a) == k {
			t.Errorf("differ %d: the key stayed", i)
		}
	}
	h := NewHasher()
	h.Add(struct{ F func() }{func() {}})
	if _, err := h.Sum(); err == nil {
		t.Error("a func hashed")
	}
}

// An entry is read back only as written: a damaged one, or one stored
// under another key, is a miss.
func TestStore(t *testing.T) {
	s := Open(t.TempDir())
	k := key(t, "one")
	content := []byte("the code of an entity")
	if _, ok := s.Get(k); ok {
		t.Fatal("a hit in an empty store")
	}
	s.Put(k, content)
	got, ok := s.Get(k)
	if !ok || !bytes.Equal(got, content) {
		t.Fatalf("got %q, %v", got, ok)
	}
	path := s.path(k)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := key(t, "two")
	for name, bad := range map[string][]byte{
		"flipped":   append(bytes.Clone(data[:len(data)-1]), data[len(data)-1]^1),
		"truncated": data[:len(data)-3],
		"short":     data[:10],
		"empty":     nil,
		"other key": append(append([]byte(magic), other[:]...), data[len(magic)+len(other):]...),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.Get(k); ok {
			t.Errorf("%s: a hit: %q", name, got)
		}
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files beside the entry", len(entries)-1)
	}
	if Version() == "" {
		t.Error("no version for this test binary")
	}
	var nilStore *Store
	nilStore.Put(k, content)
	if _, ok := nilStore.Get(k); ok {
		t.Error("a nil store hit")
	}
}

func TestEncode(t *testing.T) {
	parts := [][]byte{[]byte("a"), nil, bytes.Repeat([]byte("x"), 300)}
	got, err := Decode(Encode(parts...))
	if err != nil || len(got) != 3 || string(got[0]) != "a" || len(got[1]) != 0 || len(got[2]) != 300 {
		t.Fatalf("%q, %v", got, err)
	}
	if _, err := Decode(Encode(parts...)[:5]); err == nil {
		t.Error("a cut payload decoded")
	}
}

// Trim removes what no run used for the age given, at most once a day,
// and only starts the clock in a new cache.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	old, fresh := key(t, "old"), key(t, "fresh")
	s.Put(old, []byte("old"))
	s.Put(fresh, []byte("fresh"))
	long := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(s.path(old), long, long); err != nil {
		t.Fatal(err)
	}
	s.Trim(24 * time.Hour) // a new cache: the mark only
	if _, ok := s.Get(old); !ok {
		t.Fatal("the first trim removed an entry")
	}
	if err := os.Chtimes(s.path(old), long, long); err != nil { // Get touched it
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "trim.txt"), long, long); err != nil {
		t.Fatal(err)
	}
	s.Trim(24 * time.Hour)
	if _, ok := s.Get(old); ok {
		t.Error("an entry unused for two days stayed")
	}
	if _, ok := s.Get(fresh); !ok {
		t.Error("a fresh entry went")
	}
}

// PutParts stores what Put of Encode stores.
func TestPutParts(t *testing.T) {
	s := Open(t.TempDir())
	k := key(t, "parts")
	parts := [][]byte{[]byte("schema.cql"), bytes.Repeat([]byte("x"), 1000), nil, []byte("end")}
	s.PutParts(k, parts...)
	got, ok := s.Get(k)
	if !ok || !bytes.Equal(got, Encode(parts...)) {
		t.Fatalf("got %d bytes, %v", len(got), ok)
	}
}
