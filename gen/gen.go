// Package gen runs cqlgen from Go: it loads packages, builds and checks
// their models, and returns in memory every file it would write into them
// (schema.cql, cqlgen_gen.go, schema.md), with the diagnostics of the
// model. Nothing touches the disk until Apply.
//
// Every type it hands out is its own; the stages behind it live in the
// module's internal packages (internal/pipeline).
//
// A run reuses the code of an entity whose model did not change since an
// earlier run, from a cache in the user's cache directory (see
// Options.CacheDir); the output is the same byte for byte as without it.
package gen

import (
	"errors"
	"go/token"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// The files cqlgen writes into each package.
const (
	SchemaFile = "schema.cql"    // the DDL
	GoFile     = "cqlgen_gen.go" // the repositories
	ReviewFile = "schema.md"     // the review page
)

// Outputs are the names of every file cqlgen may write into a package.
var Outputs = []string{SchemaFile, GoFile, ReviewFile}

// Options configure a run.
type Options struct {
	Dir      string   // where package patterns are resolved; "" is the current directory
	Patterns []string // package patterns, as for go build; none means "."
	// Driver names the Go driver the methods of user-defined types are
	// written for: "gocql" (github.com/gocql/gocql) or "gocqlv2"
	// (github.com/apache/cassandra-gocql-driver/v2); see DriverNames. ""
	// detects it for each package from what its fields use.
	Driver string
	// CacheDir is where the code of entities is kept between runs: ""
	// takes $CQLGEN_CACHE, or else cqlgen under os.UserCacheDir; "off"
	// (or CQLGEN_CACHE=off when CacheDir is "") turns the cache off.
	CacheDir string
}

// Result is what a run would write.
type Result struct {
	Packages []*Package
	Diags    Diagnostics // sorted by position
}

// Package is one package's generated files.
type Package struct {
	Path  string            // import path
	Dir   string            // directory
	Files map[string][]byte // by base name (Outputs); a package without entities has none
}

// Severity tells whether a diagnostic stops generation.
type Severity int

const (
	Error   Severity = iota // stops generation: nothing is written
	Warning                 // printed; generation goes on
	Notice                  // information, never a failure
)

func (s Severity) String() string { return diag.Severity(s).String() }

// Diagnostic is one finding of the model's checks, at one place in the
// user's source.
type Diagnostic struct {
	Pos      token.Position
	Severity Severity
	Code     string // a stable name of the kind of finding, such as "unknown-column"
	Message  string // for people

	d diag.Diagnostic // as the stages made it, for formatting
}

// String formats d as "file:line:col: message [code]", warnings with
// "warning: " before the message.
func (d Diagnostic) String() string { return d.d.String() }

// Format is String with the file name relative to dir when it lies below
// it.
func (d Diagnostic) Format(dir string) string { return d.d.Format(dir) }

// Diagnostics is a run's findings.
type Diagnostics []Diagnostic

// HasErrors reports whether any of l is an error.
func (l Diagnostics) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Format writes one diagnostic a line, file names relative to dir.
func (l Diagnostics) Format(dir string) string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(d.Format(dir) + "\n")
	}
	return b.String()
}

func (l Diagnostics) String() string { return l.Format("") }

// ErrModel is matched (errors.Is) by the error Generate returns when the
// model has errors: a *ModelError.
var ErrModel = errors.New("the model has errors")

// ModelError is the error Generate returns when the model has errors:
// their packages get no files.
type ModelError struct {
	Diags Diagnostics // the errors, and the warnings beside them
}

func (e *ModelError) Error() string {
	var errs Diagnostics
	for _, d := range e.Diags {
		if d.Severity == Error {
			errs = append(errs, d)
		}
	}
	return ErrModel.Error() + ":\n" + strings.TrimSuffix(errs.String(), "\n")
}

// Unwrap returns ErrModel.
func (e *ModelError) Unwrap() error { return ErrModel }

// Generate runs every stage in memory and returns the files it would
// write. Packages whose model has errors get no files, and the error is a
// *ModelError (the diagnostics are in the Result too); any other error
// means the packages could not be loaded, or an emitter failed.
func Generate(opts Options) (*Result, error) {
	res, err := pipeline.Generate(pipeline.Options{Dir: opts.Dir, Patterns: opts.Patterns, Driver: opts.Driver, CacheDir: opts.CacheDir})
	if res == nil {
		return nil, err
	}
	out := &Result{Diags: diagnostics(res.Diags)}
	for _, p := range res.Packages {
		out.Packages = append(out.Packages, &Package{Path: p.Path, Dir: p.Dir, Files: p.Files})
	}
	if errors.Is(err, pipeline.ErrModel) {
		return out, &ModelError{Diags: out.Diags}
	}
	return out, err
}

func diagnostics(l diag.List) Diagnostics {
	out := make(Diagnostics, len(l))
	for i, d := range l {
		out[i] = Diagnostic{Pos: d.Pos, Severity: Severity(d.Severity), Code: string(d.Code), Message: d.Msg, d: d}
	}
	return out
}

// DriverNames lists the names Options.Driver takes, with their import
// paths, for messages.
func DriverNames() string { return pipeline.DriverNames() }

// Change is one file whose content on disk differs from what Generate made.
type Change struct {
	Path string // file path
	Old  []byte // nil when the file does not exist
	New  []byte // nil when the file should be removed
}

// Changes compares the generated files with the disk. A file cqlgen wrote
// earlier that the model no longer produces counts as a change too, so it
// is removed rather than left stale. A file of one of the names cqlgen
// writes that cqlgen did not write is an error: it is never overwritten.
func (r *Result) Changes() ([]Change, error) {
	pr := &pipeline.Result{}
	for _, p := range r.Packages {
		pr.Packages = append(pr.Packages, &pipeline.Package{Path: p.Path, Dir: p.Dir, Files: p.Files})
	}
	cs, err := pr.Changes()
	out := make([]Change, len(cs))
	for i, c := range cs {
		out[i] = Change(c)
	}
	return out, err
}

// Apply writes the changes: each file is written to a temporary file in the
// same directory and renamed over the old one, so a reader never sees half
// a file.
func Apply(changes []Change) error {
	cs := make([]pipeline.Change, len(changes))
	for i, c := range changes {
		cs[i] = pipeline.Change(c)
	}
	return pipeline.Apply(cs)
}
