package pipeline

import (
	"bytes"
	"crypto/sha256"
	"go/token"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/emit"
	"github.com/cqlgen/cqlgen/internal/emit/cqlschema"
	"github.com/cqlgen/cqlgen/internal/emit/review"
	"github.com/cqlgen/cqlgen/internal/gencache"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/validate"
)

// The cache of emitted code (internal/gencache) works at two levels:
//
//   - a package whose whole model is the same as in an earlier run gets
//     its three files back in one read, and no emitter runs;
//   - otherwise the Go emitter takes the code of each entity whose model
//     is the same as in an earlier run from the cache (emit.Cache), and
//     builds the others; the schema and the review page, which look at
//     the whole package, are made again, with the parts of each
//     unchanged entity from the cache: its tables' DDL (cqlschema.Cache)
//     and its rows, diagram and statements on the review page
//     (review.Cache, which renders again an entity's part whose tables'
//     verdicts changed).
//
// Keys are hashes of the model (gencache.Hasher) and of the generator's
// build (gencache.Version), never of generated text, and they are made
// before validation and the emitters run, which fill the model's lazy
// fields. The validate stage's diagnostics are kept too, under a key with
// the positions in: a package whose model is the same where it is written
// is not validated again.

// CacheStats counts what the cache served in a run.
type CacheStats struct {
	Packages int // packages whose files all came from the cache
	Entities int // entities whose code came from the cache, in the other packages
	Emitted  int // entities whose code was built, in packages run with a cache
	Sections int // entities' parts of the review page and of the schema that came from the cache
}

// cacheMaxAge is how long an entry no run has used stays.
const cacheMaxAge = 5 * 24 * time.Hour

// openCache opens the cache dir names (Options.CacheDir); nil when the
// cache is off or the generator's build cannot be identified.
func openCache(dir string) *gencache.Store {
	if gencache.Version() == "" {
		return nil
	}
	return gencache.Open(gencache.Dir(dir))
}

// packageCache is the cache as one package sees it. A nil *packageCache
// is a run without a cache.
type packageCache struct {
	store   *gencache.Store
	pkg     gencache.Key
	shell   gencache.Key // of the package without its entities
	diags   gencache.Key // of the validate stage's diagnostics
	keys    map[*model.Entity]gencache.Key
	version string
	mu      sync.Mutex
	entries map[*model.Entity]*entry
	hits    atomic.Int64 // entities served
	parts   atomic.Int64 // parts of the review page and the schema served
}

// newPackageCache makes the keys of mp and of its entities; nil when
// store is nil or the model holds something the keys cannot take.
func newPackageCache(store *gencache.Store, mp *model.Package) *packageCache {
	if store == nil {
		return nil
	}
	v := gencache.Version()
	c := &packageCache{store: store, keys: map[*model.Entity]gencache.Key{}, entries: map[*model.Entity]*entry{}, version: v}
	// The package's key: everything of it but its entities, then each
	// entity's key in order; and the same with the positions in, for the
	// diagnostics.
	h := gencache.NewHasher("package", v)
	shell := *mp
	shell.Entities = nil
	h.Add(&shell)
	pk, err := h.Sum()
	if err != nil {
		return nil
	}
	pa, _ := h.SumAll()
	c.shell = pk
	ph, pah := gencache.NewHasher("files", v), gencache.NewHasher("diagnostics", v)
	ph.Add(pk[:])
	pah.Add(pa[:])
	// The entities' keys, on every core: each entity is hashed whole by
	// one Hasher, which only reads the model.
	type keys struct {
		k, all gencache.Key
		err    error
	}
	ks := make([]keys, len(mp.Entities))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(mp.Entities)) {
		wg.Go(func() {
			h := gencache.NewHasher()
			for i := int(next.Add(1) - 1); i < len(ks); i = int(next.Add(1) - 1) {
				// An entity's code is written in the package's name and
				// for its path (the qualified names it does not spell
				// out) and driver.
				h.Reset("entity", v, mp.Path, mp.Name, mp.Driver)
				h.Add(mp.Entities[i])
				ks[i].k, ks[i].err = h.Sum()
				ks[i].all, _ = h.SumAll()
			}
		})
	}
	wg.Wait()
	for i, e := range mp.Entities {
		if ks[i].err != nil {
			return nil
		}
		c.keys[e] = ks[i].k
		ph.Add(ks[i].k[:])
		pah.Add(ks[i].all[:])
	}
	c.pkg, _ = ph.Sum()
	c.diags, _ = pah.Sum()
	return c
}

// validate runs the validate stage on mp, or takes its diagnostics from
// the cache when a run saw the same model, positions included.
func (c *packageCache) validate(mp *model.Package) diag.List {
	if c == nil {
		return validate.Check(mp)
	}
	if data, ok := c.store.Get(c.diags); ok {
		if l, ok := decodeDiags(data); ok {
			return l
		}
	}
	l := validate.Check(mp)
	c.store.Put(c.diags, encodeDiags(l))
	return l
}

// encodeDiags writes l for the cache: each diagnostic as 13 strings.
func encodeDiags(l diag.List) []byte {
	var parts [][]byte
	pos := func(p token.Position) {
		parts = append(parts, []byte(p.Filename), itob(p.Offset), itob(p.Line), itob(p.Column))
	}
	for _, d := range l {
		pos(d.Pos)
		parts = append(parts, itob(int(d.Severity)), []byte(d.Code), []byte(d.Msg))
		pos(d.End)
		parts = append(parts, []byte(d.Suggestion), []byte(d.Help))
	}
	return gencache.Encode(parts...)
}

func itob(n int) []byte { return strconv.AppendInt(nil, int64(n), 10) }

// decodeDiags reads what encodeDiags wrote.
func decodeDiags(data []byte) (diag.List, bool) {
	parts, err := gencache.Decode(data)
	if err != nil || len(parts)%13 != 0 {
		return nil, false
	}
	ok := true
	num := func(b []byte) int {
		n, err := strconv.Atoi(string(b))
		ok = ok && err == nil
		return n
	}
	pos := func(p [][]byte) token.Position {
		return token.Position{Filename: string(p[0]), Offset: num(p[1]), Line: num(p[2]), Column: num(p[3])}
	}
	var l diag.List
	for ; len(parts) > 0; parts = parts[13:] {
		l = append(l, diag.Diagnostic{
			Pos: pos(parts[0:4]), Severity: diag.Severity(num(parts[4])), Code: diag.Code(parts[5]), Msg: string(parts[6]),
			End: pos(parts[7:11]), Suggestion: string(parts[11]), Help: string(parts[12]),
		})
	}
	return l, ok
}

// files puts the package's files into files when the cache has them all.
func (c *packageCache) files(files map[string][]byte) bool {
	if c == nil {
		return false
	}
	data, ok := c.store.Get(c.pkg)
	if !ok {
		return false
	}
	parts, err := gencache.Decode(data)
	if err != nil || len(parts) != 2*len(Outputs) {
		return false
	}
	got := map[string][]byte{}
	for i := 0; i < len(parts); i += 2 {
		got[string(parts[i])] = parts[i+1]
	}
	for _, name := range Outputs {
		if _, ok := got[name]; !ok {
			return false
		}
	}
	for name, content := range got {
		files[name] = content
	}
	return true
}

// putFiles stores the package's files.
func (c *packageCache) putFiles(files map[string][]byte) {
	if c == nil {
		return
	}
	var parts [][]byte
	for _, name := range Outputs {
		content, ok := files[name]
		if !ok {
			return
		}
		parts = append(parts, []byte(name), content)
	}
	c.store.PutParts(c.pkg, parts...)
}

// An entity's entry holds its four parts, each emitter's: the Go code's
// imports and code (emit.Cache), its tables' DDL (cqlschema.Cache) and
// its sections of the review page (review.Cache). It is read once, by
// whichever emitter asks first, and written once, when every emitter has
// put its part (flush): one file an entity, not three.
const (
	partImports = iota
	partCode
	partSchema
	partReview
	entryParts
)

// entry is an entity's entry as this run sees it.
type entry struct {
	once  sync.Once
	found [][]byte // the parts read from the cache; nil on a miss
	mu    sync.Mutex
	put   [entryParts][]byte
	have  int // how many parts were put
}

// entry returns e's entry, reading it from the store on first use; nil
// when e has no key.
func (c *packageCache) entry(e *model.Entity) *entry {
	c.mu.Lock()
	en, ok := c.entries[e]
	if !ok {
		if _, keyed := c.keys[e]; keyed {
			en = &entry{}
		}
		c.entries[e] = en
	}
	c.mu.Unlock()
	if en == nil {
		return nil
	}
	en.once.Do(func() {
		data, ok := c.store.Get(c.entryKey(e))
		if !ok {
			return
		}
		if parts, err := gencache.Decode(data); err == nil && len(parts) == entryParts {
			en.found = parts
		}
	})
	return en
}

// entryKey is the key of e's entry: e's key and the package's without
// its entities, whose options the schema and the page may follow.
func (c *packageCache) entryKey(e *model.Entity) gencache.Key {
	k := c.keys[e]
	b := make([]byte, 0, 8+2*len(k))
	b = append(append(append(b, "entity\x00"...), c.shell[:]...), k[:]...)
	return sha256.Sum256(b)
}

// get returns part i of e's entry from the cache.
func (c *packageCache) get(e *model.Entity, i int) ([]byte, bool) {
	en := c.entry(e)
	if en == nil || en.found == nil {
		return nil, false
	}
	return en.found[i], true
}

// set keeps part i of e's entry for flush.
func (c *packageCache) set(e *model.Entity, i int, part []byte) {
	if en := c.entry(e); en != nil {
		en.mu.Lock()
		if en.put[i] == nil {
			en.have++
		}
		if part == nil {
			part = []byte{} // put, though empty
		}
		en.put[i] = part
		en.mu.Unlock()
	}
}

// flush writes the entry of each entity whose four parts were put, after
// every emitter succeeded.
func (c *packageCache) flush() {
	if c == nil {
		return
	}
	for e, en := range c.entries {
		if en != nil && en.have == entryParts {
			c.store.PutParts(c.entryKey(e), en.put[:]...)
		}
	}
}

// entities is the cache of the entities' code, for emit.RepositoriesCached;
// nil without a cache.
func (c *packageCache) entities() emit.Cache {
	if c == nil {
		return nil
	}
	return entityCache{c}
}

type entityCache struct{ c *packageCache }

func (ec entityCache) Get(e *model.Entity) (emit.Part, bool) {
	if _, ok := ec.c.get(e, partCode); !ok {
		return emit.Part{}, false
	}
	imports, _ := ec.c.get(e, partImports)
	code, _ := ec.c.get(e, partCode)
	var lines []string
	if len(imports) > 0 {
		for _, line := range bytes.Split(imports, []byte("\n")) {
			lines = append(lines, string(line))
		}
	}
	ec.c.hits.Add(1)
	return emit.Part{Imports: lines, Code: code}, true
}

func (ec entityCache) Put(e *model.Entity, pt emit.Part) {
	var imports bytes.Buffer
	for i, line := range pt.Imports {
		if i > 0 {
			imports.WriteByte('\n')
		}
		imports.WriteString(line)
	}
	ec.c.set(e, partImports, imports.Bytes())
	ec.c.set(e, partCode, pt.Code)
}

// review is the cache of the review page's part of each entity, for
// review.ReviewCached; nil without a cache.
func (c *packageCache) review() review.Cache {
	if c == nil {
		return nil
	}
	return reviewCache{c}
}

// reviewCache keeps an entity's sections of the review page as one part
// of its entry.
type reviewCache struct{ c *packageCache }

func (rc reviewCache) Get(e *model.Entity) ([][]byte, bool) {
	b, ok := rc.c.get(e, partReview)
	if !ok {
		return nil, false
	}
	sections, err := gencache.Decode(b)
	if err != nil {
		return nil, false
	}
	rc.c.parts.Add(1)
	return sections, true
}

func (rc reviewCache) Put(e *model.Entity, sections [][]byte) {
	rc.c.set(e, partReview, gencache.Encode(sections...))
}

// schema is the cache of each entity's DDL, for cqlschema.SchemaCached;
// nil without a cache.
func (c *packageCache) schema() cqlschema.Cache {
	if c == nil {
		return nil
	}
	return partCache{c, partSchema}
}

// partCache is one part of each entity's entry.
type partCache struct {
	c    *packageCache
	part int
}

func (pc partCache) Get(e *model.Entity) ([]byte, bool) {
	b, ok := pc.c.get(e, pc.part)
	if ok {
		pc.c.parts.Add(1)
	}
	return b, ok
}

func (pc partCache) Put(e *model.Entity, part []byte) { pc.c.set(e, pc.part, part) }
