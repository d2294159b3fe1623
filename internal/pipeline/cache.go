package pipeline

import (
	"bytes"
	"sync/atomic"
	"time"

	"github.com/cqlgen/cqlgen/internal/emit"
	"github.com/cqlgen/cqlgen/internal/gencache"
	"github.com/cqlgen/cqlgen/internal/model"
)

// The cache of emitted code (internal/gencache) works at two levels:
//
//   - a package whose whole model is the same as in an earlier run gets
//     its three files back in one read, and no emitter runs;
//   - otherwise the Go emitter takes the code of each entity whose model
//     is the same as in an earlier run from the cache (emit.Cache), and
//     builds the others; the schema and the review page, which look at
//     the whole package, are made again.
//
// Keys are hashes of the model (gencache.Hasher) and of the generator's
// build (gencache.Version), never of generated text, and they are made
// before the emitters run, which fill the model's lazy fields.

// CacheStats counts what the cache served in a run.
type CacheStats struct {
	Packages int // packages whose files all came from the cache
	Entities int // entities whose code came from the cache, in the other packages
	Emitted  int // entities whose code was built, in packages run with a cache
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
	keys    map[*model.Entity]gencache.Key
	version string
	hits    atomic.Int64 // entities served
}

// newPackageCache makes the keys of mp and of its entities; nil when
// store is nil or the model holds something the keys cannot take.
func newPackageCache(store *gencache.Store, mp *model.Package) *packageCache {
	if store == nil {
		return nil
	}
	v := gencache.Version()
	c := &packageCache{store: store, keys: map[*model.Entity]gencache.Key{}, version: v}
	// The package's key: everything of it but its entities, then each
	// entity's key in order.
	ph := gencache.NewHasher("package", v)
	shell := *mp
	shell.Entities = nil
	ph.Add(&shell)
	h := gencache.NewHasher()
	for _, e := range mp.Entities {
		// An entity's code is written in the package's name and for its
		// path (the qualified names it does not spell out) and driver.
		h.Reset("entity", v, mp.Path, mp.Name, mp.Driver)
		h.Add(e)
		k, err := h.Sum()
		if err != nil {
			return nil
		}
		c.keys[e] = k
		ph.Add(k[:])
	}
	k, err := ph.Sum()
	if err != nil {
		return nil
	}
	c.pkg = k
	return c
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
	c.store.Put(c.pkg, gencache.Encode(parts...))
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
	k, ok := ec.c.keys[e]
	if !ok {
		return emit.Part{}, false
	}
	data, ok := ec.c.store.Get(k)
	if !ok {
		return emit.Part{}, false
	}
	parts, err := gencache.Decode(data)
	if err != nil || len(parts) != 2 {
		return emit.Part{}, false
	}
	var imports []string
	if len(parts[0]) > 0 {
		for _, line := range bytes.Split(parts[0], []byte("\n")) {
			imports = append(imports, string(line))
		}
	}
	ec.c.hits.Add(1)
	return emit.Part{Imports: imports, Code: parts[1]}, true
}

func (ec entityCache) Put(e *model.Entity, pt emit.Part) {
	k, ok := ec.c.keys[e]
	if !ok {
		return
	}
	var imports bytes.Buffer
	for i, line := range pt.Imports {
		if i > 0 {
			imports.WriteByte('\n')
		}
		imports.WriteString(line)
	}
	ec.c.store.Put(k, gencache.Encode(imports.Bytes(), pt.Code))
}
