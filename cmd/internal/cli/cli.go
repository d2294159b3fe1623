// Package cli implements the cqlgen command: one file a subcommand, all of
// them on the same in-memory generation (pipeline.Generate).
package cli

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/suggest"
)

// Exit codes, stable for scripts and CI.
const (
	ExitOK       = 0 // success; for check, every generated file is fresh
	ExitStale    = 1 // check: a generated file is stale, missing or orphaned
	ExitUsage    = 2 // bad command line
	ExitModel    = 3 // the model has errors; diagnostics are on stderr
	ExitFailure  = 4 // the packages could not be loaded, or a file could not be read or written
	ExitInternal = 5 // a bug in cqlgen; please report it
)

// command is a subcommand. Main makes its flag set, named after it and
// with a usage line from args (or usage, where the list's column is too
// narrow for the command's own), and run declares its flags in it.
type command struct {
	name    string
	args    string
	summary string
	run     func(env *env, fs *flag.FlagSet, args []string) int
	usage   string // the arguments of its usage line, when not args
}

var commands = []command{
	{"generate", "[packages]", "generate schema.cql (and code) for the packages; writes only if every stage succeeds", runGenerate, ""},
	{"check", "[packages]", "exit 1, with a diff, if a generated file is stale, missing or orphaned", runCheck, ""},
	{"diff", "[packages]", "classify the changes against the committed schema.cql (or -base-rev, -base or -live) and write migrations\n\t                          (-migrations DIR: a relative DIR is inside each package's folder)", runDiff, ""},
	{"apply", "[packages]", "create the packages' tables (schema.cql, all IF NOT EXISTS) on the cluster CASSANDRA_HOSTS names, and make the additive changes diff proposes", runApply, ""},
	{"migrate", "-keyspace K DIR", "apply the numbered migrations of DIR (diff -migrations writes them) in order, once each, under a lock", runMigrate, ""},
	{"maintain", "SUB [package]", "verify, repair, backfill, adopt or status: cqlmaintain.Run on the package's entities stored in several tables, on the cluster CASSANDRA_HOSTS names, with no program of your own", runMaintain, ""},
	{"import", "FILE.cql", "write cqlgen declarations for an existing schema: a CQL file, or -keyspace K on the cluster CASSANDRA_HOSTS names", runImport, "FILE.cql | -keyspace K"},
	{"version", "", "print the version", runVersion, ""},
}

type env struct {
	stdout, stderr io.Writer
	dir            string // the working directory, for relative paths in messages
	// getenv reads the environment; tests replace it.
	getenv func(string) string
	out    output // -format and -errors-only, for the commands that take them
	// cacheDir is -cache: where the pipeline keeps emitted code between
	// runs ("" for $CQLGEN_CACHE or the user's cache directory, "off").
	cacheDir string
}

// Main runs cqlgen with args (without the program name) and returns the
// exit code.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "cqlgen: internal error: %v\nPlease report this with the input that caused it.\n%s", r, debug.Stack())
			code = ExitInternal
		}
	}()
	wd, _ := os.Getwd()
	e := &env{stdout: stdout, stderr: stderr, dir: wd, getenv: os.Getenv}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return ExitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(e, newFlags(e, c.name, cmp.Or(c.usage, c.args)), args[1:])
		}
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	mean := ""
	if c := suggest.Closest(args[0], names); c != "" {
		mean = "; did you mean " + c + "?"
	}
	fmt.Fprintf(stderr, "cqlgen: unknown command %q%s\n\n", args[0], mean)
	usage(stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `cqlgen generates Cassandra tables and typed repositories from access
patterns declared as struct tags.

Usage:

	cqlgen <command> [flags] [packages]

Commands:

`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-9s %-15s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprint(w, `
Packages are named as for go build; the default is ".".
generate, check and diff take -format text|json|github (how diagnostics
are written: json and github for CI) and -errors-only (warnings left out).
The commands that talk to a cluster (apply, migrate, diff -live, import
-keyspace, maintain) take -timeout (default 1m): how long one statement may
take, retries included; statements that can run twice are retried with
backoff. (maintain's program runs its statements as the runtime does,
with the session's retries.)

Exit codes:

	0  success (check: everything is fresh; diff: no breaking change)
	1  check: a generated file is stale, missing or orphaned;
	   diff: a breaking change, for which no migration is written;
	   apply: schema.cql is stale, or the keyspace still differs
	   from the declarations after applying it;
	   migrate: a migration changed since it was applied, or the
	   folder and the keyspace's ledger disagree;
	   maintain verify: drift found
	2  bad command line
	3  the model has errors (file:line:col: message on stderr), or
	   warnings under -strict
	4  the packages could not be loaded, a file could not be written,
	   or the cluster could not be reached; migrate: a statement
	   failed, or another run held the lock past -wait; maintain:
	   the generated code is stale, its program does not build, or
	   the subcommand failed
	5  internal error in cqlgen
	6  maintain repair, backfill or adopt: the verify after it still
	   finds drift (rows shadowed by later deletes: run repair)
	7  maintain: the source of truth holds rows the run did not read
`)
}

// newFlags makes a subcommand's flag set that reports to stderr; its
// usage line names the command and its arguments, args.
func newFlags(e *env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: cqlgen %s [flags] %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// generate runs the pipeline and reports diagnostics; ok is false when
// the caller should stop with code.
// With strict, warnings count as errors. driver is -driver's value.
func generate(e *env, patterns []string, strict bool, driver string) (res *pipeline.Result, code int, ok bool) {
	res, err := pipeline.Generate(pipeline.Options{Patterns: patterns, Driver: driver, CacheDir: e.cacheDir})
	if res != nil {
		e.report(res.Diags, strict)
	}
	errs, warns := 0, 0
	if res != nil {
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				errs++
			} else {
				warns++
			}
		}
	}
	switch {
	case errors.Is(err, pipeline.ErrModel):
		fmt.Fprintf(e.stderr, "cqlgen: %d error(s); nothing was written\n", errs)
		return nil, ExitModel, false
	case err == nil && strict && warns > 0:
		fmt.Fprintf(e.stderr, "cqlgen: %d warning(s), which -strict counts as errors; nothing was written\n", warns)
		return nil, ExitModel, false
	case err != nil:
		fmt.Fprintf(e.stderr, "cqlgen: %v\n", err)
		return nil, ExitFailure, false
	}
	return res, ExitOK, true
}

// schemaPackages generates the packages patterns name and returns those
// that declare entities (that have a schema.cql), as generate does.
func schemaPackages(e *env, patterns []string) (pkgs []*pipeline.Package, code int, ok bool) {
	res, code, ok := generate(e, patterns, false, "")
	if !ok {
		return nil, code, false
	}
	for _, p := range res.Packages {
		if p.Files[pipeline.SchemaFile] != nil {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, code, true
}

// changes parses a subcommand's flags, generates in memory and compares
// the result with the disk.
func changes(e *env, fs *flag.FlagSet, args []string) ([]pipeline.Change, int, bool) {
	strict := fs.Bool("strict", false, "treat warnings as errors")
	driver := fs.String("driver", "", "the Go driver the methods of user-defined types are written for: gocql or gocqlv2\n(default: the one the package's fields or imports use, else the one its go.mod requires, else gocql)")
	fs.StringVar(&e.cacheDir, "cache", "", "where the code of entities is kept between runs, to build again only what changed; off turns it off\n(default: $CQLGEN_CACHE, else cqlgen under the user's cache directory)")
	outputFlags(e, fs)
	if err := fs.Parse(args); err != nil {
		return nil, ExitUsage, false
	}
	if _, known := model.Drivers[*driver]; *driver != "" && !known {
		fmt.Fprintf(e.stderr, "cqlgen %s: -driver %q: want %s\n", fs.Name(), *driver, pipeline.DriverNames())
		return nil, ExitUsage, false
	}
	res, code, ok := generate(e, fs.Args(), *strict, *driver)
	if !ok {
		return nil, code, false
	}
	cs, err := res.Changes()
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen: %v\n", err)
		return nil, ExitFailure, false
	}
	return sortedPaths(cs), ExitOK, true
}

func (e *env) rel(path string) string {
	if rest, ok := strings.CutPrefix(path, e.dir+string(os.PathSeparator)); ok {
		return rest
	}
	return path
}

func sortedPaths(changes []pipeline.Change) []pipeline.Change {
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}
