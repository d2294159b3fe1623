package cqltest

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"
)

func intKey(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

// Tokens Cassandra computed, from public sources; each vector names where
// it comes from.
func TestMurmur3TokenVectors(t *testing.T) {
	for _, v := range []struct {
		key   []byte
		token int64
		from  string
	}{
		// apache/cassandra-dtest, replication_test.py, murmur3_hashes: the
		// tokens of int partition keys 1 to 20, which the test checks
		// against the replicas a cluster writes to.
		{intKey(1), -4069959284402364209, "cassandra-dtest replication_test.py"},
		{intKey(2), -3248873570005575792, "cassandra-dtest replication_test.py"},
		{intKey(3), 9010454139840013625, "cassandra-dtest replication_test.py"},
		{intKey(4), -2729420104000364805, "cassandra-dtest replication_test.py"},
		{intKey(5), -7509452495886106294, "cassandra-dtest replication_test.py"},
		{intKey(6), 2705480034054113608, "cassandra-dtest replication_test.py"},
		{intKey(7), 1634052884888577606, "cassandra-dtest replication_test.py"},
		{intKey(8), -3799847372828181882, "cassandra-dtest replication_test.py"},
		{intKey(9), 3728482343045213994, "cassandra-dtest replication_test.py"},
		{intKey(10), -6715243485458697746, "cassandra-dtest replication_test.py"},
		{intKey(11), -4156302194539278891, "cassandra-dtest replication_test.py"},
		{intKey(12), 8582886034424406875, "cassandra-dtest replication_test.py"},
		{intKey(13), -5034495173465742853, "cassandra-dtest replication_test.py"},
		{intKey(14), 4279681877540623768, "cassandra-dtest replication_test.py"},
		{intKey(15), -1191135763843456182, "cassandra-dtest replication_test.py"},
		{intKey(16), -5477287129830487822, "cassandra-dtest replication_test.py"},
		{intKey(17), 5467144456125416399, "cassandra-dtest replication_test.py"},
		{intKey(18), -2695747960476065067, "cassandra-dtest replication_test.py"},
		{intKey(19), -3974532302236993209, "cassandra-dtest replication_test.py"},
		{intKey(20), 1388667306199997068, "cassandra-dtest replication_test.py"},

		// datastax/python-driver, tests/unit/test_metadata.py,
		// TokensTest.test_murmur3_tokens: the driver's Murmur3 token
		// function, which must place keys as Cassandra does. The \xfe and
		// \xfa\x99 tails have bytes of 0x80 and more: Cassandra's signed
		// reading of the tail.
		{[]byte("123"), -7468325962851647638, "python-driver test_metadata.py"},
		{bytes.Repeat([]byte{0x00, 0xff, 0x10, 0xfa, 0x99}, 10), 5837342703291459765, "python-driver test_metadata.py"},
		{bytes.Repeat([]byte{0xfe}, 8), -8927430733708461935, "python-driver test_metadata.py"},
		{bytes.Repeat([]byte{0x10}, 8), 1446172840243228796, "python-driver test_metadata.py"},
		{[]byte("9223372036854775807"), 7162290910810015547, "python-driver test_metadata.py"},
	} {
		if got := murmur3Token(v.key); got != v.token {
			t.Errorf("token of %x = %d, want %d (%s)", v.key, got, v.token, v.from)
		}
	}
}

// A composite partition key is hashed in its serialized form: each
// component's length, bytes and a 0 byte.
func TestMurmur3CompositeKey(t *testing.T) {
	// gocql, internal/murmur/murmur_test.go, TestMurmur3H1_CassandraSign:
	// the key of a partition (uuid, int) whose token Cassandra computes
	// with its signed tail bytes, serialized as
	// 00104327529fb645dd00b883ec39ae448bb800000400066a6b00.
	uuid, _ := hex.DecodeString("4327529fb645dd00b883ec39ae448bb8")
	ser := serializePartitionKey([][]byte{uuid, intKey(0x00066a6b)})
	if want, _ := hex.DecodeString("00104327529fb645dd00b883ec39ae448bb800000400066a6b00"); !bytes.Equal(ser, want) {
		t.Fatalf("serialized key %x, want %x", ser, want)
	}
	if got, want := murmur3Token(ser), int64(-9223371632693506265); got != want {
		t.Errorf("token %d, want %d (gocql TestMurmur3H1_CassandraSign)", got, want)
	}
	// One column is its value alone.
	if got := serializePartitionKey([][]byte{intKey(1)}); !bytes.Equal(got, intKey(1)) {
		t.Errorf("one column serialized as %x", got)
	}
}

// Every tail length, against the same hash reading the tail's bytes
// unsigned, as the reference implementation does: the two agree when no
// tail byte is 0x80 or more, and differ otherwise (Cassandra's quirk).
func TestMurmur3SignedTail(t *testing.T) {
	for n := 0; n <= 40; n++ {
		ascii := make([]byte, n)
		high := make([]byte, n)
		for i := range ascii {
			ascii[i] = byte('a' + i%26)
			high[i] = byte(0x80 + i)
		}
		if got, want := murmur3H1(ascii), murmur3x64H1(ascii, false); got != want {
			t.Errorf("len %d, ASCII: %d, reference %d", n, got, want)
		}
		if n%16 != 0 && murmur3H1(high) == murmur3x64H1(high, false) {
			t.Errorf("len %d, high bytes: the tail was read unsigned", n)
		}
	}
	if murmur3Token(nil) != math.MinInt64 {
		t.Errorf("an empty key does not have the minimum token")
	}
}
