package engine

import (
	"bytes"
	"math/big"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"

	"github.com/gocql/gocql"
)

func hashOf(vals ...any) []byte {
	return PayloadHash([]cqldriver.Query{{Stmt: &cqldriver.Statement{CQL: "INSERT INTO t (a) VALUES (?)"}, Values: vals}})
}

func TestPayloadHashDependsOnValuesOnly(t *testing.T) {
	when := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	s1, s2 := "x", "x"
	u := gocql.MustRandomUUID()
	same := [][2][]any{
		// Pointers by what they point to.
		{{&s1}, {&s2}},
		// The same instant in another location.
		{{when}, {when.In(time.FixedZone("X", 3600))}},
		{{big.NewInt(12345)}, {big.NewInt(12345)}},
		{{u, []string{"a"}}, {u, []string{"a"}}},
	}
	for _, c := range same {
		if !bytes.Equal(hashOf(c[0]...), hashOf(c[1]...)) {
			t.Errorf("%v and %v hash differently", c[0], c[1])
		}
	}
	// Map iteration order is random; the hash is not.
	m := map[string]int{}
	for i := range 50 {
		m[string(rune('a'+i%26))+string(rune('a'+i/26))] = i
	}
	first := hashOf(m)
	for range 20 {
		if !bytes.Equal(hashOf(m), first) {
			t.Fatal("a map hashes differently from one call to the next")
		}
	}
}

func TestPayloadHashTellsPayloadsApart(t *testing.T) {
	distinct := [][]any{
		{"1"}, {1}, {int64(2)}, {uint64(1)}, {1.0}, {true}, {nil}, {cqldriver.Unset},
		{[]string{"a", "b"}}, {[]string{"ab"}}, {[]string{"a"}, "b"}, {"a", "b"},
		{[]byte("ab")}, {big.NewInt(12345)}, {big.NewInt(12346)},
		{map[string]int{"a": 1}}, {map[string]int{"a": 2}},
		{time.Unix(1, 0)}, {time.Unix(1, 1)},
	}
	seen := map[string]int{}
	for i, vals := range distinct {
		h := string(hashOf(vals...))
		if j, dup := seen[h]; dup {
			t.Errorf("%v and %v hash the same", distinct[j], vals)
		}
		seen[h] = i
	}
	a := PayloadHash([]cqldriver.Query{{Stmt: &cqldriver.Statement{CQL: "INSERT INTO a (k) VALUES (?)"}, Values: []any{"k"}}})
	b := PayloadHash([]cqldriver.Query{{Stmt: &cqldriver.Statement{CQL: "INSERT INTO b (k) VALUES (?)"}, Values: []any{"k"}}})
	if bytes.Equal(a, b) {
		t.Error("the same values for two statements hash the same")
	}
}
