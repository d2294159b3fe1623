package cqltest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/ordercases"
)

// raw binds bytes as they are, for values gocql cannot build here
// (decimals, non-minimal varints).
type raw []byte

func (r raw) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

func decimal(unscaled int64, scale int32) raw {
	b := binary.BigEndian.AppendUint32(nil, uint32(scale))
	return append(b, twosComplement(big.NewInt(unscaled))...)
}

// twosComplement is the minimal big-endian two's complement encoding.
func twosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := (v.BitLen() + 8) / 8
	m := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(n*8)))
	b := m.FillBytes(make([]byte, n))
	return b
}

// orderCases lists, per type, edge values in Cassandra's ascending order
// for the type, each strictly above the one before: the integration
// suite checks the same list against a node.
var orderCases = func() []orderCase {
	var out []orderCase
	for _, c := range ordercases.Cases {
		out = append(out, orderCase{c.Type, c.Values})
	}
	return out
}()

type orderCase struct {
	typ    string
	values []any
}

func testType(t *testing.T, name string) *cqlType {
	t.Helper()
	p, err := newParser(name)
	if err != nil {
		t.Fatal(err)
	}
	typ, err := parseType(p, topLevel, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return typ
}

func marshal(t *testing.T, typ *cqlType, v any) []byte {
	t.Helper()
	b, err := cqldriver.Marshal(typ.info, v)
	if err != nil {
		t.Fatalf("%s: marshal %v: %v", typ.name, v, err)
	}
	if err := typ.validate(b); err != nil {
		t.Fatalf("%s: %v: %v", typ.name, v, err)
	}
	return typ.normalize(b)
}

func TestCompareValuesOrdersEachType(t *testing.T) {
	for _, tc := range orderCases {
		typ := testType(t, tc.typ)
		vals := make([][]byte, len(tc.values))
		for i, v := range tc.values {
			vals[i] = marshal(t, typ, v)
		}
		for i := range vals {
			for j := range vals {
				got := compareValues(typ, vals[i], vals[j])
				if want := sign(i - j); got != want {
					t.Errorf("%s: compare(%v, %v) = %d, want %d", tc.typ, tc.values[i], tc.values[j], got, want)
				}
			}
		}
	}
}

func TestCompareValuesEqualities(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		a, b []byte
	}{
		// DecimalType compares values: 1.0 = 1.00, 0 = 0E+5.
		{"decimal", decimal(10, 1), decimal(100, 2)},
		{"decimal", decimal(0, 0), decimal(0, -5)},
		// IntegerType compares values: a redundant sign byte changes nothing.
		{"varint", []byte{0x01}, []byte{0x00, 0x01}},
		{"varint", []byte{0xff}, []byte{0xff, 0xff}},
		// Float.compare makes every NaN equal.
		{"double", binary.BigEndian.AppendUint64(nil, 0x7ff8000000000001), binary.BigEndian.AppendUint64(nil, 0xfff0000000000001)},
		// Any non-zero byte is true.
		{"boolean", []byte{1}, []byte{0x80}},
	} {
		if c := compareValues(testType(t, tc.typ), tc.a, tc.b); c != 0 {
			t.Errorf("%s: compare(%x, %x) = %d, want 0", tc.typ, tc.a, tc.b, c)
		}
	}
	// An empty value (not null) sorts first, whatever the type.
	for _, name := range []string{"int", "bigint", "double", "uuid", "timeuuid", "decimal", "boolean", "text", "frozen<list<int>>"} {
		typ := testType(t, name)
		var some []byte
		for _, tc := range orderCases {
			if tc.typ == name {
				some = marshal(t, typ, tc.values[len(tc.values)-1])
			}
		}
		if some == nil {
			some = marshal(t, typ, []int32{})
		}
		if len(some) == 0 {
			continue
		}
		if compareValues(typ, []byte{}, some) != -1 || compareValues(typ, some, []byte{}) != 1 || compareValues(typ, []byte{}, []byte{}) != 0 {
			t.Errorf("%s: the empty value does not sort first", name)
		}
	}
}

// TestClusteringOrderEachType stores every value of each type as a
// clustering key, in a random order, and reads the partition back in both
// clustering orders.
func TestClusteringOrderEachType(t *testing.T) {
	var schema strings.Builder
	for i, tc := range orderCases {
		for _, dir := range []string{"ASC", "DESC"} {
			fmt.Fprintf(&schema, "CREATE TABLE t%d_%s (k int, c %s, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c %s);\n", i, dir, tc.typ, dir)
		}
	}
	s := newSession(t, schema.String())
	rng := rand.New(rand.NewPCG(1, 2))
	for i, tc := range orderCases {
		typ := testType(t, tc.typ)
		for _, dir := range []string{"ASC", "DESC"} {
			table := fmt.Sprintf("t%d_%s", i, dir)
			for _, j := range rng.Perm(len(tc.values)) {
				mustExec(t, s, "INSERT INTO "+table+" (k, c, v) VALUES (?, ?, ?)", 0, tc.values[j], j)
			}
			rows := selectAll(t, s, 0, 2, "SELECT c, v FROM "+table+" WHERE k = ?", 0)
			if len(rows) != len(tc.values) {
				t.Fatalf("%s %s: %d rows, want %d", tc.typ, dir, len(rows), len(tc.values))
			}
			for n, row := range rows {
				want := n
				if dir == "DESC" {
					want = len(tc.values) - 1 - n
				}
				if got := int(int32(binary.BigEndian.Uint32(row[1]))); got != want {
					t.Errorf("%s %s: row %d holds value %d (%v), want %d (%v)", tc.typ, dir, n, got, tc.values[got], want, tc.values[want])
				}
				if !bytes.Equal(row[0], marshal(t, typ, tc.values[want])) {
					t.Errorf("%s %s: row %d: key %x", tc.typ, dir, n, row[0])
				}
			}
		}
	}
}

// Clustering keys that the type's comparator finds equal are one row, as
// in Cassandra's memtable; partition keys are told apart by their bytes.
func TestEqualKeysAreOneRow(t *testing.T) {
	s := newSession(t, "CREATE TABLE d (k decimal, c decimal, v int, PRIMARY KEY (k, c))")
	mustExec(t, s, "INSERT INTO d (k, c, v) VALUES (?, ?, ?)", decimal(1, 0), decimal(10, 1), 1)
	mustExec(t, s, "INSERT INTO d (k, c, v) VALUES (?, ?, ?)", decimal(1, 0), decimal(100, 2), 2)
	mustExec(t, s, "INSERT INTO d (k, c, v) VALUES (?, ?, ?)", decimal(10, 1), decimal(1, 0), 3)
	rows := selectAll(t, s, 0, 1, "SELECT v FROM d WHERE k = ?", decimal(1, 0))
	if len(rows) != 1 || rows[0][0][3] != 2 {
		t.Errorf("partition 1: %v, want one row holding 2", rows)
	}
	if rows := selectAll(t, s, 0, 1, "SELECT v FROM d WHERE k = ?", decimal(10, 1)); len(rows) != 1 || rows[0][0][3] != 3 {
		t.Errorf("partition 1.0: %v, want one row holding 3", rows)
	}
}
