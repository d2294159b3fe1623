package cqlbucket_test

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlbucket"
)

// The buckets a generated repository computes, by hand: the partition of
// a `bucket:"day(at)"` pattern, and of a `bucket:"hash(email, 16)"` one.
func Example() {
	at := time.Date(2026, 11, 26, 15, 4, 5, 0, time.UTC)
	fmt.Println(cqlbucket.Day.Of(at))
	fmt.Println(cqlbucket.Day.Prev(cqlbucket.Day.Of(at)))
	// Any client computes the same hash bucket: FNV-1a of the value's
	// CQL encoding (UTF-8 for text), modulo N.
	h := fnv.New32a()
	h.Write([]byte("ann@example.com"))
	fmt.Println(cqlbucket.Hash(16).Text("ann@example.com") == int32(h.Sum32()%16))
	// Output:
	// 2026-11-26 00:00:00 +0000 UTC
	// 2026-11-25 00:00:00 +0000 UTC
	// true
}
