package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"text/template"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/suggest"
)

// maintainCommands are the subcommands of cqlmaintain.Run that
// cqlgen maintain passes on.
var maintainCommands = []string{"verify", "repair", "backfill", "adopt", "status"}

// maintainFlag is a flag of cqlmaintain.Run, which maintain checks and
// passes on.
type maintainFlag struct {
	name, usage string
	kind        byte // 's' string, 'i' int, 'b' bool, 'r' repeatable string
}

// maintainFlags are cqlmaintain.Run's flags (TestMaintainFlagsAreRuns
// compares them with Run's own).
var maintainFlags = []maintainFlag{
	{"entity", "the `entity` (default: every one)", 's'},
	{"table", "a `table` to work on (repeatable; default: every one)", 'r'},
	{"job", "the `name` of a job: run again, it resumes; status reports it across workers", 's'},
	{"shard", "this worker's share `i/n` of the job's ranges (default: JOB_COMPLETION_INDEX of CQLGEN_SHARDS, or all)", 's'},
	{"rate", "`rows` written a second at most, by the whole job (default: no bound)", 'i'},
	{"consistency", "the consistency `level` of every read and write (default: the session's)", 's'},
	{"ranges", "token `ranges` per table (default 64)", 'i'},
	{"concurrency", "`ranges` at once (default 4)", 'i'},
	{"writes", "`rows` a backfill or adopt writes at once (default: adapts to the cluster's latency, from 32, at most 256)", 'i'},
	{"buckets", "digest `buckets` per table (default 4096)", 'i'},
	{"hold", "`rows` a verify or repair without -job holds at once to compare (default 4096)", 'i'},
	{"json", "print the report as JSON", 'b'},
	{"show-keys", "show the sample keys' values (default: each redacted to a short hash)", 'b'},
}

const maintainArgs = "verify|repair|backfill|adopt|status [-entity E] [-table T]... [-job NAME] [flags] [package]"

// runMaintain runs cqlmaintain.Run on the generated repositories of a
// package's entities stored in several tables, with no program of the
// user's: it writes a main package that builds a session from the
// CASSANDRA_* variables and calls cqlmaintain.Run, builds it in the
// package's own module (its go.mod, replace lines and driver), and runs
// it with the subcommand and flags, returning its exit code.
func runMaintain(e *env, fs *flag.FlagSet, args []string) int {
	bad := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "cqlgen maintain: "+format+"\n", a...)
		fmt.Fprintf(e.stderr, "usage: cqlgen maintain %s (cqlgen maintain -h for the flags)\n", maintainArgs)
		return ExitUsage
	}
	if len(args) == 0 {
		return bad("no subcommand: name one of %s", strings.Join(maintainCommands, ", "))
	}
	sub := args[0]
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: cqlgen maintain %s\n\n%s", maintainArgs, maintainHelp)
		fs.PrintDefaults()
	}
	driver := fs.String("driver", "", "the `driver` the package was generated for, as generate's -driver (default: the one generate finds)")
	keyspace := fs.String("keyspace", "", "the `keyspace` of the tables (default: the package's //cqlgen:keyspace)")
	timeout := timeoutFlag(fs)
	var passed []string // the flags to pass on, as -name=value
	for _, f := range maintainFlags {
		name := f.name
		pass := func(v string) error { passed = append(passed, "-"+name+"="+v); return nil }
		switch f.kind {
		case 'b':
			fs.BoolFunc(name, f.usage, func(v string) error {
				if _, err := strconv.ParseBool(v); err != nil {
					return errors.New("want true or false")
				}
				return pass(v)
			})
		case 'i':
			fs.Func(name, f.usage, func(v string) error {
				if n, err := strconv.Atoi(v); err != nil || n < 0 {
					return errors.New("want a number, 0 or more")
				}
				return pass(v)
			})
		default:
			fs.Func(name, f.usage, pass)
		}
	}
	switch {
	case sub == "-h" || sub == "-help" || sub == "--help" || sub == "help":
		fs.SetOutput(e.stdout)
		fs.Usage()
		return ExitOK
	case strings.HasPrefix(sub, "-"):
		return bad("name the subcommand first: %s", strings.Join(maintainCommands, ", "))
	}
	known := false
	for _, c := range maintainCommands {
		known = known || c == sub
	}
	if !known {
		mean := ""
		if c := suggest.Closest(sub, maintainCommands); c != "" {
			mean = "; did you mean " + c + "?"
		}
		return bad("unknown subcommand %q%s (there are %s)", sub, mean, strings.Join(maintainCommands, ", "))
	}
	// Flags may come after the package too: cqlgen maintain verify
	// ./music -entity Track.
	fs.SetOutput(io.Discard)
	var pkgs []string
	for rest := args[1:]; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(e.stderr)
				fs.Usage()
				return ExitUsage
			}
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				var names []string
				fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
				mean := ""
				if c := suggest.Closest(name, names); c != "" {
					mean = "; did you mean -" + c + "?"
				}
				return bad("unknown flag -%s%s", name, mean)
			}
			return bad("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		pkgs = append(pkgs, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(pkgs) > 1 {
		return bad("one package, not %d (%s): each package's repositories are maintained on their own", len(pkgs), strings.Join(pkgs, " "))
	}
	pattern := "."
	if len(pkgs) == 1 {
		pattern = pkgs[0]
	}
	if err := checkTimeout(*timeout); err != nil {
		return bad("%v", err)
	}
	if _, known := model.Drivers[*driver]; *driver != "" && !known {
		return bad("-driver %q: want %s", *driver, pipeline.DriverNames())
	}
	p, code := maintainedPackage(e, pattern, *driver)
	if p == nil {
		return code
	}
	if *keyspace == "" && p.Model.Keyspace != nil {
		*keyspace = p.Model.Keyspace.Name
	}
	if *keyspace == "" {
		return bad("no keyspace: give -keyspace K, or declare one in %s with //cqlgen:keyspace NAME {replication}", e.rel(p.Dir))
	}
	// The cluster and the keyspace are checked here, before a build:
	// CASSANDRA_* as every command reads them, a CASSANDRA_LOCAL_DC that
	// names no datacenter, a keyspace that does not exist.
	s, c, err := dial(e.getenv, *timeout)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen maintain: %v\n", err)
		return ExitFailure
	}
	exists, err := tableExists(s, c.retrier(e.stderr, "cqlgen maintain"), *keyspace, "")
	s.Close()
	if err == nil && !exists {
		err = gocql.ErrNotFound
	}
	if errors.Is(err, gocql.ErrNotFound) {
		fmt.Fprintf(e.stderr, "cqlgen maintain: keyspace %s does not exist on %s (cqlgen apply creates it; or give -keyspace K)\n", *keyspace, strings.Join(c.Hosts, ","))
		return ExitFailure
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen maintain: %v\n", err)
		return ExitFailure
	}
	// An interrupt or a SIGTERM stops the build, and the folder it
	// built in is removed; while the program runs, it is passed on to it.
	stops := make(chan os.Signal, 1)
	signal.Notify(stops, stopSignals...)
	defer signal.Stop(stops)
	bin, cleanup, err := buildMaintainer(e, p, *keyspace, stops)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen maintain: %v\n", err)
		return ExitFailure
	}
	defer cleanup()
	return runMaintainer(e, bin, append([]string{sub}, passed...), stops)
}

const maintainHelp = `Runs cqlmaintain.Run on the generated repositories of the package's
entities stored in several tables, in the keyspace of its
//cqlgen:keyspace (or -keyspace), on the cluster the CASSANDRA_*
variables name (docs/runbook.md): no program of your own is needed. It
builds one in the package's module, with its go.mod, and runs it.

	verify    report the rows missing, stale or orphaned; exit 1 if any
	repair    verify, then write what is missing or stale, delete orphans
	backfill  fill one -table from the source of truth, resumably (-job)
	adopt     stamp the rows written before cqlgen, range by range (-job)
	status    print the state of a -job

Exit codes: those of the subcommand (0 in step or done, 1 drift found by
verify, 2 bad command line, 4 failure, 6 a repair, backfill or adopt
left drift, 7 the source of truth holds rows the run did not read); 3
the model has errors; 4 also when the generated code is stale or the
program does not build, or the cluster cannot be reached.

`

// maintainedPackage loads pattern and returns the one package it names
// whose entities have maintenance (Verify, Repair, Backfill), with its
// generated code fresh; nil with the exit code otherwise, said on stderr.
func maintainedPackage(e *env, pattern, driver string) (*pipeline.Package, int) {
	res, err := pipeline.Generate(pipeline.Options{Patterns: []string{pattern}, Driver: driver})
	if res != nil && errors.Is(err, pipeline.ErrModel) {
		// The errors alone: maintenance runs on a model already
		// generated, whose warnings generate has shown.
		var errs diag.List
		for _, d := range res.Diags {
			if d.Severity == diag.Error {
				errs = append(errs, d)
			}
		}
		e.report(errs, false)
		fmt.Fprintf(e.stderr, "cqlgen maintain: %d error(s) in the model\n", len(errs))
		return nil, ExitModel
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen maintain: %v\n", err)
		return nil, ExitFailure
	}
	var found []*pipeline.Package
	var others []string // entities without maintenance, and why
	for _, p := range res.Packages {
		if len(maintained(p.Model)) > 0 {
			found = append(found, p)
			continue
		}
		for _, ent := range p.Model.Entities {
			why := "one table"
			switch {
			case ent.Counting():
				why = "counters, which cannot be rebuilt"
			case len(ent.Tables) > 1:
				why = "no source of truth"
			}
			others = append(others, ent.GoName+" ("+why+")")
		}
	}
	switch {
	case len(found) == 0:
		msg := "declares no entity"
		if len(others) > 0 {
			msg = "has no entity stored in several tables: " + strings.Join(others, ", ")
		}
		fmt.Fprintf(e.stderr, "cqlgen maintain: %s %s; maintain verifies, repairs and backfills the tables of an entity stored in several tables (through the write protocol, or declared immutable) from its source of truth\n", pattern, msg)
		return nil, ExitUsage
	case len(found) > 1:
		var names []string
		for _, p := range found {
			names = append(names, pkgArg(e, p))
		}
		fmt.Fprintf(e.stderr, "cqlgen maintain: %s names %d packages with maintained entities (%s): name one\n", pattern, len(found), strings.Join(names, ", "))
		return nil, ExitUsage
	}
	p := found[0]
	if p.Model.Name == "main" {
		fmt.Fprintf(e.stderr, "cqlgen maintain: %s is a main package, which no program can import: declare the entities in a package of their own\n", pkgArg(e, p))
		return nil, ExitUsage
	}
	// What runs is the generated code on disk, which must be what the
	// declarations generate: otherwise the tables it checks are not the
	// ones declared (and the program may not build).
	path := filepath.Join(p.Dir, pipeline.GoFile)
	if disk, err := os.ReadFile(path); err != nil || !bytes.Equal(disk, p.Files[pipeline.GoFile]) {
		fmt.Fprintf(e.stderr, "cqlgen maintain: %s is missing or stale: run go generate (or cqlgen generate) first; if generate is given -driver, give maintain the same\n", e.rel(path))
		return nil, ExitFailure
	}
	return p, ExitOK
}

// maintained lists the entities of p whose generated repository is a
// cqlmaintain.Maintainer: those internal/emit writes Verify, Repair and
// Backfill for (emit.entity: not a counter entity, and Maintained).
func maintained(p *model.Package) []*model.Entity {
	var out []*model.Entity
	for _, ent := range p.Entities {
		if ent.Maintained() && !ent.Counting() {
			out = append(out, ent)
		}
	}
	return out
}

// pkgArg is how a command line names p: its folder relative to the
// working directory (./music), or its import path when it lies outside.
func pkgArg(e *env, p *pipeline.Package) string {
	if p.Dir == e.dir {
		return "."
	}
	if rel := e.rel(p.Dir); rel != p.Dir {
		return "./" + filepath.ToSlash(rel)
	}
	return p.Path
}

// maintainCmd is the cqlgen maintain command line of sub and its
// arguments on p, for diff's advice; keyspace, when it is not the one
// p's //cqlgen:keyspace names, is given with -keyspace.
func maintainCmd(e *env, p *pipeline.Package, keyspace, sub string) string {
	return "cqlgen maintain " + sub + " " + maintainTarget(e, p, keyspace)
}

// maintainTarget is the end of a cqlgen maintain command line on p: the
// package, after -keyspace K when keyspace is not p's own.
func maintainTarget(e *env, p *pipeline.Package, keyspace string) string {
	if keyspace != "" && (p.Model.Keyspace == nil || p.Model.Keyspace.Name != keyspace) {
		return "-keyspace " + keyspace + " " + pkgArg(e, p)
	}
	return pkgArg(e, p)
}

// maintainMain is the program maintain builds.
var maintainMain = template.Must(template.New("main").Parse(`// Code generated by cqlgen maintain. DO NOT EDIT.

// Command maintain runs cqlmaintain.Run on the repositories of
// {{.Path}}, in keyspace {{.Keyspace}}, on the cluster the CASSANDRA_*
// variables name.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	user {{printf "%q" .Path}}
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	driver {{printf "%q" .Adapter}}
)

func main() { os.Exit(run()) }

func run() int {
	cluster, err := driver.ClusterFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cqlgen maintain:", err)
		return 4
	}
	cluster.Keyspace = {{printf "%q" .Keyspace}}
	gs, err := driver.CreateSession(cluster)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cqlgen maintain:", err)
		return 4
	}
	defer gs.Close()
	// Ctrl-C stops a backfill between rows; run it again to resume.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s := driver.NewSession(gs, nil)
	return cqlmaintain.Run(ctx, os.Args[1:], os.Stdout, os.Stderr,{{range .Repos}}
		user.{{.}}(s),{{end}}
	)
}
`))

// adapters are the cqlgen driver adapters, by the driver's import path.
var adapters = map[string]string{
	model.GocqlPath:   "github.com/cqlgen/cqlgen/runtime/gocqlv1",
	model.GocqlV2Path: "github.com/cqlgen/cqlgen/runtime/gocqlv2",
}

// maintainSource is the maintenance program of p, on the adapter of the
// driver p's generated code is for.
func maintainSource(p *pipeline.Package, keyspace string) (src []byte, adapter string, err error) {
	adapter = adapters[p.Model.Driver]
	if adapter == "" {
		adapter = adapters[model.GocqlPath]
	}
	data := struct {
		Path, Keyspace, Adapter string
		Repos                   []string
	}{Path: p.Path, Keyspace: keyspace, Adapter: adapter}
	for _, ent := range maintained(p.Model) {
		data.Repos = append(data.Repos, ent.Names.NewRepo)
	}
	var b bytes.Buffer
	if err := maintainMain.Execute(&b, data); err != nil {
		return nil, "", err
	}
	src, err = format.Source(b.Bytes())
	return src, adapter, err
}

// buildMaintainer writes the maintenance program of p in a folder of its
// own inside p's module, so that the go command builds it with the
// module's go.mod (its versions, replace lines and driver) as go test
// builds a test binary; builds it into a temporary folder outside the
// module, and removes the source at once. The folder's name starts with
// _, which ./... patterns skip. cleanup removes the binary.
func buildMaintainer(e *env, p *pipeline.Package, keyspace string, stops <-chan os.Signal) (bin string, cleanup func(), err error) {
	root, err := moduleRoot(p.Dir)
	if err != nil {
		return "", nil, err
	}
	src, adapter, err := maintainSource(p, keyspace)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp(root, "_cqlgen_maintain_")
	if err != nil {
		return "", nil, fmt.Errorf("writing the maintenance program: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
		return "", nil, fmt.Errorf("writing the maintenance program: %w", err)
	}
	out, err := os.MkdirTemp("", "cqlgen-maintain-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(out) }
	bin = filepath.Join(out, "maintain")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	var msg bytes.Buffer
	build.Stdout, build.Stderr = &msg, &msg
	if err := runPassing(build, stops); err != nil {
		cleanup()
		hint := ""
		if strings.Contains(msg.String(), "no required module provides package "+adapter) ||
			strings.Contains(msg.String(), "missing go.sum entry") {
			hint = fmt.Sprintf("\n(the program needs %s: go get %s, or go mod tidy, in %s)", adapter, adapter, e.rel(root))
		}
		return "", nil, fmt.Errorf("building the maintenance program of %s: %v\n%s%s", p.Path, err, strings.TrimRight(msg.String(), "\n"), hint)
	}
	return bin, cleanup, nil
}

// stopSignals are the signals maintain passes on to what it runs.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// runPassing runs cmd, passing on to it the signals that arrive on stops (a
// terminal's Ctrl-C reaches both already; a kill of cqlgen alone reaches
// it this way).
func runPassing(cmd *exec.Cmd, stops <-chan os.Signal) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return err
		case sig := <-stops:
			_ = cmd.Process.Signal(sig)
		}
	}
}

// runMaintainer runs bin with args, its standard streams cqlgen's, and
// returns its exit code. cqlgen waits for it to stop after an interrupt,
// which a backfill does between rows, saying how to resume.
func runMaintainer(e *env, bin string, args []string, stops <-chan os.Signal) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, e.stderr
	err := runPassing(cmd, stops)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	default:
		fmt.Fprintf(e.stderr, "cqlgen maintain: running the maintenance program: %v\n", err)
		return ExitFailure
	}
}
