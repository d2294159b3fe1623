package cqltest

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Tokens, as Cassandra's Murmur3Partitioner computes them: the partition
// key's serialized form hashed with the x64 128-bit variant of MurmurHash3
// (seed 0), of which the token is the first 64-bit half, read as a signed
// number.

// minToken is the partitioner's minimum token, which no key has: it stands
// for the start (and, as an upper bound, the end) of the ring.
const minToken = math.MinInt64

// serializePartitionKey is the partition key as Cassandra hashes and orders
// it: one column's value as is; for several columns, each value as a 2-byte
// big-endian length, the value, and a 0 byte (CompositeType's layout).
func serializePartitionKey(parts [][]byte) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	n := 0
	for _, p := range parts {
		n += 3 + len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
		b = append(b, p...)
		b = append(b, 0)
	}
	return b
}

// murmur3Token is the token of a serialized partition key. The hash's
// minimum value is moved to the maximum, as Murmur3Partitioner.normalize
// does, so that no key has the minimum token; an empty key has it.
func murmur3Token(key []byte) int64 {
	if len(key) == 0 {
		return minToken
	}
	h := murmur3H1(key)
	if h == math.MinInt64 {
		return math.MaxInt64
	}
	return h
}

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// murmur3H1 is the first half of MurmurHash3_x64_128 of data with seed 0,
// as Cassandra's MurmurHash.hash3_x64_128 computes it. It differs from the
// reference implementation in one respect, kept on purpose: the bytes of
// the final partial block are read as signed (Java's byte), so that a byte
// of 0x80 or more is sign-extended before it is shifted into place, and its
// high bits are xored into the bytes above it.
func murmur3H1(data []byte) int64 { return murmur3x64H1(data, true) }

// murmur3x64H1 is the first half of MurmurHash3_x64_128 with seed 0,
// reading the tail's bytes as signed (Cassandra) or unsigned (the
// reference implementation).
func murmur3x64H1(data []byte, signedTail bool) int64 {
	var h1, h2 uint64
	n := len(data)
	blocks := n / 16
	for i := 0; i < blocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])

		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := data[blocks*16:]
	var k1, k2 uint64
	for i, b := range tail {
		v := uint64(b)
		if signedTail {
			v = uint64(int64(int8(b))) // Java's (long) byte: sign-extended
		}
		if i < 8 {
			k1 ^= v << (8 * i)
		} else {
			k2 ^= v << (8 * (i - 8))
		}
	}
	if len(tail) > 8 {
		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
	}
	if len(tail) > 0 {
		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	return int64(h1)
}

// fmix64 is MurmurHash3's finalization mix.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
