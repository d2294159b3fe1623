package gencache

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Off is the CacheDir, or the value of $CQLGEN_CACHE, that turns the cache
// off.
const Off = "off"

// Dir resolves where the cache lives: dir when given, else $CQLGEN_CACHE,
// else cqlgen under os.UserCacheDir. It returns "" when the cache is off
// (Off) or no directory can be found.
func Dir(dir string) string {
	if dir == "" {
		dir = os.Getenv("CQLGEN_CACHE")
	}
	if dir == Off {
		return ""
	}
	if dir == "" {
		user, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(user, "cqlgen")
	}
	return dir
}

// Store is a directory of entries, each a file named by its key.
type Store struct {
	dir string
}

// Open returns the store in dir (see Dir), creating it; nil when dir is
// "" or cannot be created, for a run without a cache.
func Open(dir string) *Store {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil
	}
	return &Store{dir: dir}
}

// magic starts every entry; a change of format changes it. Then come the
// entry's key, the CRC-32C of its content and the content's length, then
// the content: a file damaged or cut short fails the checksum or the
// length, and one stored under another key (or renamed) fails the key.
const magic = "cqlgen cache 2\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// path is where k's entry lives: every entry in the one directory, as a
// package's entities number tens, a cache's thousands (a subdirectory a
// key prefix cost a mkdir for most entries of a first run).
func (s *Store) path(k Key) string { return filepath.Join(s.dir, k.String()) }

// Get returns the content stored under k, when an entry exists whose
// key is k and whose content matches its checksum.
func (s *Store) Get(k Key) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	path := s.path(k)
	// Opened, sized and dated with one fstat: os.ReadFile and a Stat for
	// the touch below cost an edited run a stat for each of its entries.
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false
	}
	data := make([]byte, fi.Size())
	_, err = io.ReadFull(f, data)
	f.Close()
	if err != nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(data, []byte(magic))
	if !ok || len(rest) < len(k)+12 || !bytes.Equal(rest[:len(k)], k[:]) {
		return nil, false
	}
	sum, size, content := binary.LittleEndian.Uint32(rest[len(k):]), binary.LittleEndian.Uint64(rest[len(k)+4:]), rest[len(k)+12:]
	if uint64(len(content)) != size || crc32.Checksum(content, castagnoli) != sum {
		return nil, false
	}
	s.touch(path, fi.ModTime())
	return content, true
}

// Put stores content under k. A failure to write leaves the cache as it
// was: the run goes on without it.
func (s *Store) Put(k Key, content []byte) { s.put(k, [][]byte{content}) }

// PutParts stores Encode(parts...) under k, without joining the parts
// into one buffer first (a package's entry is over a megabyte).
func (s *Store) PutParts(k Key, parts ...[]byte) {
	pieces := make([][]byte, 0, 2*len(parts))
	for _, p := range parts {
		pieces = append(pieces, binary.AppendUvarint(nil, uint64(len(p))), p)
	}
	s.put(k, pieces)
}

// put stores the content that is pieces one after the other.
func (s *Store) put(k Key, pieces [][]byte) {
	if s == nil {
		return
	}
	var sum uint32
	var size uint64
	for _, p := range pieces {
		sum = crc32.Update(sum, castagnoli, p)
		size += uint64(len(p))
	}
	head := make([]byte, 0, len(magic)+len(k)+12)
	head = append(append(head, magic...), k[:]...)
	head = binary.LittleEndian.AppendUint32(head, sum)
	head = binary.LittleEndian.AppendUint64(head, size)
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return
	}
	var werr error
	for _, p := range append([][]byte{head}, pieces...) {
		if werr == nil {
			_, werr = tmp.Write(p)
		}
	}
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), s.path(k)); err != nil {
		os.Remove(tmp.Name())
	}
}

// An entry is touched when used, at most once an hour, so that Trim
// keeps what is in use.
const touchEvery = time.Hour

func (s *Store) touch(path string, modified time.Time) {
	if now := time.Now(); now.Sub(modified) > touchEvery {
		os.Chtimes(path, now, now)
	}
}

// Trim removes the entries not used for maxAge, at most once a day (a
// file trim.txt records the last time; a new cache only starts it).
func (s *Store) Trim(maxAge time.Duration) {
	if s == nil {
		return
	}
	mark := filepath.Join(s.dir, "trim.txt")
	now := time.Now()
	fi, err := os.Stat(mark)
	if err == nil && now.Sub(fi.ModTime()) < 24*time.Hour {
		return
	}
	os.WriteFile(mark, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o644)
	if err != nil {
		return
	}
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		name := e.Name()
		if len(name) != 2*len(Key{}) && !strings.HasPrefix(name, ".tmp-") {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > maxAge {
			os.Remove(filepath.Join(s.dir, name))
		}
	}
}

// Version identifies the running generator: the Go build ID of its
// executable, which changes with any change to the code it was built
// from (the go command keys its own caches by it), or, where none can be
// read, a SHA-256 of the executable. It is "" when neither can be had;
// the caller then does without the cache.
func Version() string {
	versionOnce.Do(func() { version = readVersion() })
	return version
}

var (
	versionOnce sync.Once
	version     string
)

func readVersion() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if id := buildID(exe); id != "" {
		return "buildid " + id + " " + runtime.Version()
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "sha256 " + hex.EncodeToString(h.Sum(nil))
}

// buildID reads the Go build ID of the executable at path: from its ELF
// note, or from the string the linker writes at the start of the text
// of the other formats. "" when neither is found.
func buildID(path string) string {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		if sect := f.Section(".note.go.buildid"); sect != nil {
			if data, err := sect.Data(); err == nil {
				if id := noteID(data, f.ByteOrder); id != "" {
					return id
				}
			}
		}
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	const prefix = "\xff Go build ID: \""
	i := bytes.Index(buf, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := buf[i+len(prefix):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 {
		return ""
	}
	return string(rest[:j])
}

// noteID reads the build ID from an ELF note: namesz, descsz, type 4,
// the name "Go\x00\x00", then the ID.
func noteID(data []byte, order binary.ByteOrder) string {
	if len(data) < 16 {
		return ""
	}
	namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
	if typ != 4 || namesz != 4 || string(data[12:16]) != "Go\x00\x00" || uint64(len(data)) < 16+uint64(descsz) {
		return ""
	}
	return string(data[16 : 16+descsz])
}

// errShort reports a payload cut short.
var errShort = errors.New("gencache: a payload cut short")

// Encode writes byte strings one after the other, each after its length.
func Encode(parts ...[]byte) []byte {
	var n int
	for _, p := range parts {
		n += len(p) + binary.MaxVarintLen64
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = binary.AppendUvarint(out, uint64(len(p)))
		out = append(out, p...)
	}
	return out
}

// Decode reads what Encode wrote.
func Decode(data []byte) ([][]byte, error) {
	var parts [][]byte
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 || uint64(len(data)-k) < n {
			return nil, errShort
		}
		parts = append(parts, data[k:k+int(n)])
		data = data[k+int(n):]
	}
	return parts, nil
}
