// Package pipeline runs cqlgen's stages: load (go/packages, once) → tag
// parse → model → validate → emit. Generation happens in memory: Generate
// returns every file it would write, so generate, check and diff share one
// path and nothing touches the disk unless every stage succeeded.
//
// It is the generator's engine room, for the command line and the tests
// of this module: it hands out the model and the diagnostics as the
// stages make them. Package gen is its face for everyone else, and hands
// out only its own types.
package pipeline

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/emit"
	"github.com/cqlgen/cqlgen/internal/emit/cqlschema"
	"github.com/cqlgen/cqlgen/internal/emit/review"
	"github.com/cqlgen/cqlgen/internal/load"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/validate"
)

// SchemaFile is the name of the DDL file written into each package.
const SchemaFile = "schema.cql"

// GoFile is the name of the Go file written into each package.
const GoFile = "cqlgen_gen.go"

// ReviewFile is the name of the review page written into each package.
const ReviewFile = "schema.md"

// Outputs are the names of every file cqlgen may write into a package.
var Outputs = []string{SchemaFile, GoFile, ReviewFile}

// Options configure a run.
type Options struct {
	Dir      string   // where package patterns are resolved; "" is the current directory
	Patterns []string // package patterns, as for go build; none means "."
	// Driver names the Go driver the methods of user-defined types are
	// written for, a key of model.Drivers: "gocql" (github.com/gocql/gocql)
	// or "gocqlv2" (github.com/apache/cassandra-gocql-driver/v2). ""
	// detects it for each package (see model.Package.Driver).
	Driver string
	// CacheDir is where emitted code is kept between runs (see Cache): ""
	// takes $CQLGEN_CACHE, or else cqlgen under os.UserCacheDir; "off"
	// turns the cache off.
	CacheDir string
}

// Result is what a run would write.
type Result struct {
	Packages []*Package
	Diags    diag.List
	// Cache counts what the cache of emitted code served.
	Cache CacheStats
}

// Package is one package's generated files.
type Package struct {
	Path  string
	Dir   string
	Files map[string][]byte // by base name; a package without entities has none
	// Model is the package's model, as built and validated.
	Model *model.Package
}

// ErrModel is returned, wrapped, when the model has errors; the details are
// in Result.Diags.
var ErrModel = errors.New("the model has errors")

// Models runs the load, model and validate stages and returns the models
// of every package with their diagnostics, sorted. It returns an error
// wrapping ErrModel when any diagnostic is an error, and a plain error when
// the packages cannot be loaded at all.
func Models(opts Options) ([]*model.Package, diag.List, error) {
	return models(opts, validate.Check)
}

// models is Models with check as the validate stage.
func models(opts Options, check func(*model.Package) diag.List) ([]*model.Package, diag.List, error) {
	var cfg model.Config
	if opts.Driver != "" {
		path, ok := model.Drivers[opts.Driver]
		if !ok {
			return nil, nil, fmt.Errorf("unknown driver %q: %s", opts.Driver, DriverNames())
		}
		cfg.Driver = path
	}
	lps, err := load.Load(load.Config{Dir: opts.Dir, Patterns: opts.Patterns})
	if err != nil {
		return nil, nil, err
	}
	var pkgs []*model.Package
	var all diag.List
	for _, lp := range lps {
		mp, diags := model.Build(lp, cfg)
		diags = append(diags, check(mp)...)
		all = append(all, diags...)
		pkgs = append(pkgs, mp)
	}
	slices.SortFunc(pkgs, func(a, b *model.Package) int { return cmp.Compare(a.Dir, b.Dir) })
	all = all.Sort()
	if all.HasErrors() {
		return pkgs, all, fmt.Errorf("%w", ErrModel)
	}
	return pkgs, all, nil
}

// DriverNames lists the names Options.Driver takes, with their import
// paths, for messages.
func DriverNames() string {
	var names []string
	for _, n := range slices.Sorted(maps.Keys(model.Drivers)) {
		names = append(names, n+" ("+model.Drivers[n]+")")
	}
	return strings.Join(names, " or ")
}

// Generate runs every stage in memory and returns the files it would
// write. Packages whose model has errors get no files; the error is as for
// Models.
func Generate(opts Options) (*Result, error) {
	// With a cache, a package's keys are made before validation, which
	// the cache spares when the package's model, positions included, is
	// the same as in an earlier run.
	store := openCache(opts.CacheDir)
	caches := map[*model.Package]*packageCache{}
	pkgs, diags, err := models(opts, func(mp *model.Package) diag.List {
		c := newPackageCache(store, mp)
		caches[mp] = c
		return c.validate(mp)
	})
	if err != nil && !errors.Is(err, ErrModel) {
		return nil, err
	}
	res := &Result{Diags: diags}
	for _, mp := range pkgs {
		out := &Package{Path: mp.Path, Dir: mp.Dir, Files: map[string][]byte{}, Model: mp}
		res.Packages = append(res.Packages, out)
		if len(mp.Entities) == 0 || hasErrorIn(diags, mp.Dir) {
			continue
		}
		c := caches[mp]
		if c.files(out.Files) {
			res.Cache.Packages++
			continue
		}
		if err := emitFiles(mp, out.Files, c); err != nil {
			return nil, fmt.Errorf("%s: %w", mp.Path, err)
		}
		c.flush()
		c.putFiles(out.Files)
		if c != nil {
			res.Cache.Entities += int(c.hits.Load())
			res.Cache.Emitted += len(mp.Entities) - int(c.hits.Load())
			res.Cache.Sections += int(c.parts.Load())
		}
	}
	store.Trim(cacheMaxAge)
	return res, err
}

// emitFiles runs the three emitters of a package at once, as they only
// read its model, and puts their files into files. The error is the first
// in the order below, the order they ran in one after the other before.
// The Go file takes the longest, its entities formatted on every core
// (emit.Repositories): the schema and the review page are made meanwhile.
// A panic in an emitter is raised again here, with the stack it had, where
// a caller may recover it (the command line reports it as an internal
// error).
func emitFiles(mp *model.Package, files map[string][]byte, c *packageCache) error {
	emitters := [...]struct {
		file string
		emit func() ([]byte, error)
	}{
		{SchemaFile, func() ([]byte, error) { return cqlschema.SchemaCached(mp, c.schema()) }},
		{GoFile, func() ([]byte, error) { return emit.RepositoriesCached(mp, c.entities()) }},
		{ReviewFile, func() ([]byte, error) { return review.ReviewCached(mp, validate.Verdicts(mp), c.review()) }},
	}
	var results [len(emitters)]struct {
		out   []byte
		err   error
		panic string // what the emitter panicked with, and where
	}
	var wg sync.WaitGroup
	for i, em := range emitters {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					results[i].panic = fmt.Sprintf("emitting %s: %v\n\n%s", em.file, r, debug.Stack())
				}
			}()
			results[i].out, results[i].err = em.emit()
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.panic != "" {
			panic(r.panic)
		}
		if r.err != nil {
			return r.err
		}
		files[emitters[i].file] = r.out
	}
	return nil
}

// hasErrorIn reports an error diagnostic in a file of dir.
func hasErrorIn(diags diag.List, dir string) bool {
	return slices.ContainsFunc(diags, func(d diag.Diagnostic) bool {
		return d.Severity == diag.Error && filepath.Dir(d.Pos.Filename) == dir
	})
}

// Change is one file whose content on disk differs from what Generate made.
type Change struct {
	Path string // file path
	Old  []byte // nil when the file does not exist
	New  []byte // nil when the file should not exist
}

// Changes compares the generated files with the disk. A file cqlgen wrote
// earlier that the model no longer produces counts as a change too, so it
// is removed rather than left stale.
func (r *Result) Changes() ([]Change, error) {
	var changes []Change
	for _, p := range r.Packages {
		for _, name := range Outputs {
			path := filepath.Join(p.Dir, name)
			old, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				old = nil
			} else if err != nil {
				return nil, err
			}
			gen, want := p.Files[name]
			if want && old != nil && !isGenerated(old) {
				return nil, fmt.Errorf("%s exists and was not written by cqlgen; refusing to overwrite it (move it, or rename it)", path)
			}
			switch {
			case want && !bytes.Equal(old, gen):
				changes = append(changes, Change{Path: path, Old: old, New: gen})
			case !want && old != nil && isGenerated(old):
				changes = append(changes, Change{Path: path, Old: old})
			}
		}
	}
	return changes, nil
}

// isGenerated reports whether content carries cqlgen's header, so that a
// hand-written file that happens to share a name is never removed.
func isGenerated(content []byte) bool {
	return bytes.HasPrefix(content, []byte("-- Code generated by cqlgen. DO NOT EDIT.")) ||
		bytes.HasPrefix(content, []byte(load.GeneratedHeader)) ||
		bytes.HasPrefix(content, []byte("<!-- Code generated by cqlgen. DO NOT EDIT."))
}

// Apply writes the changes: each file is written to a temporary file in the
// same directory and renamed over the old one, so a reader never sees half
// a file.
func Apply(changes []Change) error {
	for _, c := range changes {
		if c.New == nil {
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		tmp, err := os.CreateTemp(filepath.Dir(c.Path), ".cqlgen-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(c.New)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), c.Path); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}
