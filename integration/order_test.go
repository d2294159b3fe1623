package integration

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// orderCase is a CQL type that can be a clustering column: values of it,
// and the comparison generated code uses for it (gen/emit's compare).
type orderCase struct {
	typ     string
	values  func(r *rand.Rand) []any
	compare func(a, b any) int
}

func timeUUIDAt(r *rand.Rand, ts time.Time) gocql.UUID {
	u := gocql.UUIDFromTime(ts)
	for i := 8; i < 16; i++ { // random clock sequence and node, high bit included
		u[i] = byte(r.IntN(256))
	}
	u[8] = u[8]&0x3f | 0x80 // the RFC 4122 variant
	return u
}

var orderCases = []orderCase{
	{"timeuuid", func(r *rand.Rand) []any {
		var vs []any
		base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		for i := range 60 {
			// Many share a timestamp: then the tail bytes decide.
			vs = append(vs, timeUUIDAt(r, base.Add(time.Duration(i%5)*time.Millisecond)))
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareTimeUUID(a.(gocql.UUID), b.(gocql.UUID)) }},
	{"uuid", func(r *rand.Rand) []any {
		var vs []any
		base := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		for i := range 60 {
			if i%2 == 0 {
				vs = append(vs, timeUUIDAt(r, base.Add(time.Duration(i%3)*time.Millisecond)))
			} else {
				u, _ := gocql.RandomUUID()
				vs = append(vs, u)
			}
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareUUID(a.(gocql.UUID), b.(gocql.UUID)) }},
	{"text", func(r *rand.Rand) []any {
		return words(r, []string{"a", "B", "é", "ü", "日本", "🙂", "z", "", "ab", "aé"})
	}, func(a, b any) int { return cmp.Compare(a.(string), b.(string)) }},
	{"ascii", func(r *rand.Rand) []any { return words(r, []string{"a", "B", "z", "~", " ", "ab"}) },
		func(a, b any) int { return cmp.Compare(a.(string), b.(string)) }},
	{"varint", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			v := new(big.Int).Lsh(big.NewInt(r.Int64N(1000)-500), uint(r.IntN(90)))
			vs = append(vs, v)
		}
		return vs
	}, func(a, b any) int { return a.(*big.Int).Cmp(b.(*big.Int)) }},
	{"decimal", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			vs = append(vs, inf.NewDec(r.Int64N(20000)-10000, inf.Scale(r.IntN(6)-2)))
		}
		return vs
	}, func(a, b any) int { return a.(*inf.Dec).Cmp(b.(*inf.Dec)) }},
	{"blob", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			b := make([]byte, r.IntN(4))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			vs = append(vs, b)
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareBytes(a.([]byte), b.([]byte)) }},
	{"inet", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			if r.IntN(2) == 0 {
				vs = append(vs, net.IPv4(byte(r.IntN(256)), byte(r.IntN(256)), 0, 1).To4())
			} else {
				ip := make(net.IP, 16)
				for i := range ip {
					ip[i] = byte(r.IntN(256))
				}
				vs = append(vs, ip)
			}
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareAs("inet", a, b) }},
	{"date", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			vs = append(vs, time.Date(1900+r.IntN(250), time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC))
		}
		return vs
	}, func(a, b any) int { return a.(time.Time).Compare(b.(time.Time)) }},
	{"time", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			vs = append(vs, time.Duration(r.Int64N(int64(24*time.Hour))))
		}
		return vs
	}, func(a, b any) int { return cmp.Compare(a.(time.Duration), b.(time.Duration)) }},
	{"timestamp", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			vs = append(vs, time.UnixMilli(r.Int64N(4e12)-2e12).UTC())
		}
		return vs
	}, func(a, b any) int { return a.(time.Time).Compare(b.(time.Time)) }},
	{"boolean", func(*rand.Rand) []any { return []any{true, false} },
		func(a, b any) int { return cqlgenimpl.CompareBool(a.(bool), b.(bool)) }},
	{"tinyint", func(r *rand.Rand) []any { return ints(r, func(v int64) any { return int8(v) }, 8) },
		func(a, b any) int { return cmp.Compare(a.(int8), b.(int8)) }},
	{"smallint", func(r *rand.Rand) []any { return ints(r, func(v int64) any { return int16(v) }, 16) },
		func(a, b any) int { return cmp.Compare(a.(int16), b.(int16)) }},
	{"int", func(r *rand.Rand) []any { return ints(r, func(v int64) any { return int32(v) }, 32) },
		func(a, b any) int { return cmp.Compare(a.(int32), b.(int32)) }},
	{"bigint", func(r *rand.Rand) []any { return ints(r, func(v int64) any { return v }, 64) },
		func(a, b any) int { return cmp.Compare(a.(int64), b.(int64)) }},
	{"float", func(r *rand.Rand) []any {
		vs := []any{float32(math.NaN()), float32(math.Copysign(0, -1)), float32(0), float32(math.Inf(1)), float32(math.Inf(-1))}
		for range 30 {
			vs = append(vs, float32(r.NormFloat64()*1e3))
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareFloat32(a.(float32), b.(float32)) }},
	{"double", func(r *rand.Rand) []any {
		vs := []any{math.NaN(), math.Copysign(0, -1), 0.0, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.MaxFloat64}
		for range 30 {
			vs = append(vs, r.NormFloat64()*1e6)
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareFloat64(a.(float64), b.(float64)) }},
	{"frozen<list<int>>", func(r *rand.Rand) []any {
		var vs []any
		for range 40 {
			l := make([]int32, r.IntN(4))
			for i := range l {
				l[i] = int32(r.IntN(7) - 3)
			}
			vs = append(vs, l)
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareAs("frozen<list<int>>", a, b) }},
	{"frozen<set<text>>", func(r *rand.Rand) []any {
		var vs []any
		for range 30 {
			s := []string{}
			for range r.IntN(3) {
				s = append(s, []string{"a", "b", "é", "Z"}[r.IntN(4)])
			}
			vs = append(vs, s)
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareAs("frozen<set<text>>", a, b) }},
	{"frozen<map<text, int>>", func(r *rand.Rand) []any {
		var vs []any
		for range 30 {
			m := map[string]int32{}
			for range r.IntN(3) {
				m[[]string{"a", "b", "c"}[r.IntN(3)]] = int32(r.IntN(5) - 2)
			}
			vs = append(vs, m)
		}
		return vs
	}, func(a, b any) int { return cqlgenimpl.CompareAs("frozen<map<text, int>>", a, b) }},
}

func words(r *rand.Rand, alphabet []string) []any {
	var vs []any
	for range 40 {
		s := ""
		for range r.IntN(4) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		vs = append(vs, s)
	}
	return vs
}

func ints(r *rand.Rand, conv func(int64) any, bits uint) []any {
	lo, hi := int64(-1)<<(bits-1), int64(1)<<(bits-1)-1
	vs := []any{conv(lo), conv(hi), conv(0), conv(-1), conv(1)}
	for range 30 {
		vs = append(vs, conv(lo+int64(r.Uint64N(uint64(hi-lo)))))
	}
	return vs
}

// Cassandra orders every type a clustering column can have; the runtime
// merges hash buckets with its own comparator, which must agree, or pages
// come out misordered and paging skips rows. For each type, random values
// (edge values included) go into one partition, ascending and descending,
// and each pair of neighbours Cassandra returns must compare in order.
func TestClusteringOrderMatchesCassandra(t *testing.T) {
	raw, _ := cassandratest.Keyspace(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i, oc := range orderCases {
		for _, dir := range []string{"ASC", "DESC"} {
			table := fmt.Sprintf("order_%d_%s", i, dir)
			must(t, raw.Query(fmt.Sprintf("CREATE TABLE %s (k int, c %s, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c %s)", table, oc.typ, dir)).Exec())
			values := oc.values(r)
			for _, v := range values {
				if strings.HasPrefix(oc.typ, "frozen<set") || strings.HasPrefix(oc.typ, "frozen<map") {
					v = gocqlv1.Value(cqlgenimpl.Normalized(oc.typ, v)) // as generated code binds a key of these types
				}
				must(t, raw.Query("INSERT INTO "+table+" (k, c) VALUES (0, ?)", v).Exec())
			}
			it := raw.Query("SELECT c FROM " + table + " WHERE k = 0").PageSize(1000).Iter()
			var got []any
			typ := reflect.TypeOf(values[0])
			for {
				p := reflect.New(typ)
				if !it.Scan(p.Interface()) {
					break
				}
				got = append(got, p.Elem().Interface())
			}
			must(t, it.Close())
			if len(got) < 2 {
				t.Fatalf("%s: %d rows", oc.typ, len(got))
			}
			for j := 1; j < len(got); j++ {
				c := oc.compare(got[j-1], got[j])
				if (dir == "ASC" && c >= 0) || (dir == "DESC" && c <= 0) {
					t.Errorf("%s %s: Cassandra puts %v before %v, the runtime compares them %d", oc.typ, dir, got[j-1], got[j], c)
				}
			}
		}
	}
}
