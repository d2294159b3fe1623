package engine

import (
	"math/big"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"

	"github.com/gocql/gocql"
)

func TestValueBytes(t *testing.T) {
	s, n64, n32, b := "héllo", int64(1), int32(1), true
	now := time.Now()
	u := gocql.MustRandomUUID()
	var nilStr *string
	type udt struct {
		Street string
		Number int32
	}
	for _, c := range []struct {
		v    any
		want int
	}{
		{nil, 0}, {cqldriver.Unset, 0},
		{"héllo", 6}, {[]byte{1, 2, 3}, 3},
		{true, 1}, {int8(1), 1}, {int16(1), 2}, {int32(1), 4}, {float32(1), 4},
		{1, 8}, {int64(1), 8}, {1.5, 8}, {time.Second, 8}, {now, 8},
		{u, 16}, {[16]byte(u), 16},
		{&s, 6}, {nilStr, 0}, {&n64, 8}, {&n32, 4}, {&b, 1}, {&now, 8}, {&u, 16},
		// Collections: a 4-byte count, then each element with its length.
		{[]string{"ab", "cde"}, 4 + (4 + 2) + (4 + 3)},
		{map[string]int32{"a": 1}, 4 + (4 + 1) + (4 + 4)},
		{map[string][]int64{"a": {1, 2}}, 4 + (4 + 1) + (4 + 4 + 2*(4+8))},
		// A UDT: each field with its length.
		{udt{"Main St", 5}, (4 + 7) + (4 + 4)},
		{&udt{"x", 1}, (4 + 1) + (4 + 4)},
		{[]time.Time{now}, 4 + 4 + 8},
		{big.NewInt(1 << 40), 6}, {(*big.Int)(nil), 0},
		{dec{big.NewInt(255)}, 4 + 1 + 1},
	} {
		if got := valueBytes(c.v); got != c.want {
			t.Errorf("valueBytes(%T %v) = %d, want %d", c.v, c.v, got, c.want)
		}
	}
}

func TestEstimateBatchBytes(t *testing.T) {
	st := &cqldriver.Statement{CQL: "INSERT", Table: "t"}
	qs := []cqldriver.Query{
		{Stmt: st, Values: []any{"abc", int64(7), []byte("xy")}},
		{Stmt: st, Values: []any{nil}},
	}
	if got, want := EstimateBatchBytes(qs), (4+3)+(4+8)+(4+2)+4; got != want {
		t.Errorf("EstimateBatchBytes = %d, want %d", got, want)
	}
}

// The hot path sizes generated code's usual values without allocating.
func TestEstimateBatchBytesDoesNotAllocate(t *testing.T) {
	qs := sampleBatch()
	if n := testing.AllocsPerRun(100, func() { EstimateBatchBytes(qs) }); n != 0 {
		t.Errorf("%v allocations per estimate, want 0", n)
	}
}

func sampleBatch() []cqldriver.Query {
	st := &cqldriver.Statement{CQL: "INSERT", Table: "t"}
	name, when := "Some Track", time.Now()
	vals := []any{"user-42", when, gocql.MustRandomUUID(), &name, "Artist", int32(215), int64(1700000000000000), cqldriver.Unset}
	return []cqldriver.Query{{Stmt: st, Values: vals}, {Stmt: st, Values: vals}, {Stmt: st, Values: vals}}
}

func BenchmarkEstimateBatchBytes(b *testing.B) {
	qs := sampleBatch()
	b.ReportAllocs()
	for b.Loop() {
		EstimateBatchBytes(qs)
	}
}

// dec stands for *inf.Dec, which the runtime sizes without importing it.
type dec struct{ unscaled *big.Int }

func (d dec) UnscaledBig() *big.Int { return d.unscaled }
