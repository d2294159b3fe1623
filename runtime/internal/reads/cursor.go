package reads

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// A cursor is where a read stopped: the clustering key of the last row it
// returned, and for bucketed patterns the bucket it came from. It is
// opaque to callers: URL-safe base64 of
//
//	version(1) fingerprint(8) kind(1) [bucket fields] keyCount(uvarint)
//	{len(uvarint) bytes}... crc32(4)
//
// The fingerprint hashes the table, the pattern and the partition key
// values, so a cursor handed to another pattern or another partition is
// refused, and the CRC catches corruption.

const cursorVersion = 1

const (
	plainCursor byte = 'p'
	timeCursor  byte = 't'
	hashCursor  byte = 'h'
)

type cursor struct {
	kind   byte
	key    [][]byte  // marshaled clustering values; nil means "from the start"
	bucket int       // hash: the bucket of the last row
	at     time.Time // time: the bucket of the last row
	oldest time.Time // time: the oldest bucket the read may reach
}

// sealedCursor marks a cursor sealed with a cursor key (see sealer): its
// body is encrypted and authenticated instead of carrying a CRC.
const sealedCursor = 0x80

func encodeCursor(fp uint64, c cursor, sl *Sealer) string {
	b := make([]byte, 0, 64)
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, fp)
	b = append(b, c.kind)
	switch c.kind {
	case hashCursor:
		b = binary.AppendUvarint(b, uint64(c.bucket))
	case timeCursor:
		b = binary.AppendVarint(b, c.at.UnixMicro())
		b = binary.AppendVarint(b, c.oldest.UnixMicro())
	}
	b = binary.AppendUvarint(b, uint64(len(c.key)))
	for _, k := range c.key {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	if sl != nil {
		return base64.RawURLEncoding.EncodeToString(sl.seal(b))
	}
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(pattern string, fp uint64, kind byte, s string, sl *Sealer) (cursor, error) {
	bad := func(reason string) (cursor, error) {
		return cursor{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: pattern, Reason: reason}
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 1+8+1+1+4 {
		return bad("not a cursor")
	}
	var body []byte
	switch {
	case sl != nil:
		if body, err = sl.open(b); err != nil {
			return bad("not sealed with this repository's cursor key")
		}
	case b[0] == sealedCursor:
		return bad("sealed with a cursor key, and this repository has none")
	default:
		sum := binary.BigEndian.Uint32(b[len(b)-4:])
		if body = b[:len(b)-4]; crc32.ChecksumIEEE(body) != sum {
			return bad("corrupted")
		}
	}
	if len(body) < 1+8+1+1 {
		return bad("not a cursor")
	}
	if body[0] != cursorVersion {
		return bad(fmt.Sprintf("version %d, this runtime reads version %d", body[0], cursorVersion))
	}
	if binary.BigEndian.Uint64(body[1:9]) != fp {
		return bad("it belongs to another query or partition")
	}
	c := cursor{kind: body[9]}
	if c.kind != kind {
		return bad("it belongs to another kind of query")
	}
	r := body[10:]
	switch c.kind {
	case hashCursor:
		v, ok := value.Uvarint(&r)
		if !ok || v > 1<<20 {
			return bad("corrupted")
		}
		c.bucket = int(v)
	case timeCursor:
		at, ok1 := value.Varint(&r)
		oldest, ok2 := value.Varint(&r)
		if !ok1 || !ok2 {
			return bad("corrupted")
		}
		c.at, c.oldest = time.UnixMicro(at).UTC(), time.UnixMicro(oldest).UTC()
	}
	n, ok := value.Uvarint(&r)
	if !ok || n > 64 {
		return bad("corrupted")
	}
	for range n {
		l, ok := value.Uvarint(&r)
		if !ok || l > uint64(len(r)) {
			return bad("corrupted")
		}
		c.key = append(c.key, r[:l])
		r = r[l:]
	}
	if len(r) != 0 {
		return bad("corrupted")
	}
	return c, nil
}

// fingerprint identifies a query: its table, pattern, partition values
// and the clustering values it fixes (none but under a prefix key, which
// leaves the fingerprint of a read without one as it was).
func fingerprint(t *desc.Table, partition []any, prefix ...any) (uint64, error) {
	h := fnv.New64a()
	h.Write([]byte(t.Spec.Name))
	h.Write([]byte{0})
	h.Write([]byte(t.Spec.Pattern))
	// Each value after a separator: 0 before a partition key value, 0xff
	// before a clustering value.
	write := func(sep byte, cqlType string, v any) error {
		b, err := cqldriver.MarshalType(cqlType, v)
		h.Write([]byte{sep})
		h.Write(b)
		return err
	}
	for i, v := range partition {
		if err := write(0, t.Spec.PartitionKey[i].Type, v); err != nil {
			return 0, err
		}
	}
	for i, v := range prefix {
		if err := write(0xff, t.Spec.Clustering[i].Type, v); err != nil {
			return 0, err
		}
	}
	return h.Sum64(), nil
}

// marshalKey encodes the clustering values of a row for a cursor.
func marshalKey(t *desc.Table, values []any) ([][]byte, error) {
	key := make([][]byte, len(values))
	for i, v := range values {
		var err error
		if key[i], err = cqldriver.MarshalType(t.Spec.Clustering[i].Type, v); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// Sealer seals cursors with a key the application supplies
// (cqlgen.WithCursorKey): AES-256-GCM under SHA-256 of the key, so that a
// cursor can be neither read (a key value, an email say, never shows in a
// URL) nor forged.
type Sealer struct{ aead cipher.AEAD }

var sealers sync.Map // string(key) → *Sealer

func sealerFor(key []byte) *Sealer {
	if len(key) == 0 {
		return nil
	}
	if s, ok := sealers.Load(string(key)); ok {
		return s.(*Sealer)
	}
	k := sha256.Sum256(key)
	block, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	s := &Sealer{aead}
	sealers.Store(string(key), s)
	return s
}

func (s *Sealer) seal(body []byte) []byte {
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(body)+s.aead.Overhead())
	out[0] = sealedCursor
	if _, err := rand.Read(out[1:]); err != nil {
		panic(err) // crypto/rand does not fail
	}
	return s.aead.Seal(out, out[1:], body, out[:1])
}

func (s *Sealer) open(b []byte) ([]byte, error) {
	n := 1 + s.aead.NonceSize()
	if len(b) < n || b[0] != sealedCursor {
		return nil, errors.New("not sealed")
	}
	return s.aead.Open(nil, b[1:n], b[n:], b[:1])
}
