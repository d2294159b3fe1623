package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

func runDiff(e *env, fs *flag.FlagSet, args []string) int {
	var src source
	fs.StringVar(&src.base, "base", "", "compare with this schema file instead of the committed schema.cql (one package only)")
	fs.StringVar(&src.rev, "base-rev", "", "compare with each package's schema.cql at this git revision (origin/main, a tag, a commit): the pull-request gate")
	fs.BoolVar(&src.live, "live", false, "compare with the live cluster named by CASSANDRA_HOSTS (and CASSANDRA_USERNAME, CASSANDRA_TLS_*, CASSANDRA_LOCAL_DC)")
	fs.StringVar(&src.keyspace, "keyspace", "", "with -live: the keyspace to read (default: the package's //cqlgen:keyspace)")
	migrations := fs.String("migrations", "", "write additive changes as a numbered migration file into this directory; a relative one is\ntaken inside each package's folder (-migrations migrations writes PKG/migrations/)")
	fs.DurationVar(&src.timeout, "timeout", defaultTimeout, "with -live: how long one read of the cluster may take, retries included")
	outputFlags(e, fs)
	if !parseTimed(e, fs, args, &src.timeout) {
		return ExitUsage
	}
	m, e := e, e.forPeople() // m reports in -format; e writes the report for people
	var found diag.List      // the changes, for -format json and github
	if n := btoi(src.base != "") + btoi(src.rev != "") + btoi(src.live); n > 1 {
		fmt.Fprintln(e.stderr, "cqlgen diff: -base, -base-rev and -live each name what to compare with; give one")
		return ExitUsage
	}
	src.getenv, src.stderr = e.getenv, e.stderr
	defer src.close()
	pkgs, code, ok := schemaPackages(m, fs.Args())
	if !ok {
		return code
	}
	if src.base != "" && len(pkgs) != 1 {
		fmt.Fprintf(e.stderr, "cqlgen diff: -base compares one package, and %d match\n", len(pkgs))
		return ExitUsage
	}
	breaking, onboard := false, false
	for _, p := range pkgs {
		script := string(p.Files[pipeline.SchemaFile])
		next, err := schemadiff.Parse(script)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: generated schema: %v\n", err)
			return ExitInternal
		}
		prev, from, err := src.previous(p, script)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: %s: %v\n", e.rel(p.Dir), err)
			return ExitFailure
		}
		var changes []schemadiff.Change
		if src.live {
			changes = schemadiff.CompareLive(prev, next)
		} else {
			changes = schemadiff.Compare(prev, next)
		}
		for _, c := range changes {
			found.Add(changeDiag(p, c, maintainTarget(e, p, src.usedKeyspace)))
		}
		changes, unmanaged := splitUnmanaged(changes)
		if len(changes) == 0 {
			fmt.Fprintf(e.stdout, "%s: no changes against %s\n", e.rel(p.Dir), e.rel(from))
			if src.base == "" && src.rev == "" && !src.live {
				fmt.Fprintf(e.stdout, "  (the committed schema.cql is what the declarations generate; to review a change already generated, compare with the base branch: -base-rev origin/main)\n")
			}
		} else {
			fmt.Fprintf(e.stdout, "%s: %d change(s) against %s\n", e.rel(p.Dir), len(changes), e.rel(from))
			for _, c := range changes {
				fmt.Fprintf(e.stdout, "  %s\n", c)
			}
			for _, k := range kindChanges(p, prev, src.previousGo(p)) {
				fmt.Fprint(e.stdout, k)
				found.Add(k.diag())
			}
		}
		if len(unmanaged) > 0 {
			fmt.Fprintf(e.stdout, "  unmanaged: %s: tables of the keyspace this package does not declare; left alone\n", strings.Join(unmanaged, ", "))
		}
		if err := deprecations(e, p, prev, from, src.session, src.retrier, src.usedKeyspace); err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: %s: %v\n", e.rel(p.Dir), err)
			return ExitFailure
		}
		if len(changes) == 0 {
			continue
		}
		if src.live {
			// Cassandra 6: transactional_mode turned on over a table that
			// holds rows is refused until the table is migrated to Accord.
			if err := onboarding(src.session, src.retrier, src.usedKeyspace, changes); err != nil {
				fmt.Fprintf(e.stderr, "cqlgen diff: %s: %v\n", e.rel(p.Dir), err)
				fmt.Fprintf(e.stdout, "  no migration written: a table must be migrated to Accord first (above)\n")
				onboard = true
				continue
			}
		}
		cql, ok := schemadiff.Migration(changes)
		if !ok {
			breaking = true
			fmt.Fprintf(e.stdout, "  breaking changes cannot be applied in place: no migration written\n")
			plans(e.stdout, changes, maintainTarget(e, p, src.usedKeyspace))
			continue
		}
		for _, c := range changes {
			if c.Kind == schemadiff.Additive && c.What == "new table" && !strings.HasPrefix(c.Table, cqlspec.ReservedPrefix) {
				if entity := entityOf(script, c.Table); entity != "" {
					fmt.Fprintf(e.stdout, "  then fill %s from its source of truth, resumably, and verify it (docs/runbook.md):\n    %s\n    %s\n", c.Table,
						maintainCmd(e, p, src.usedKeyspace, fmt.Sprintf("backfill -entity %s -table %s -job add-%s", entity, c.Table, c.Table)),
						maintainCmd(e, p, src.usedKeyspace, "verify -table "+c.Table))
				}
			}
		}
		printContract(e, changes)
		if cql == "" {
			continue
		}
		if *migrations == "" {
			fmt.Fprintf(e.stdout, "  migration (write it with -migrations DIR):\n%s", indent(cql))
			continue
		}
		dir := *migrations
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(p.Dir, dir)
		}
		path, written, err := writeMigration(dir, filepath.Base(p.Dir), cql)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: %v\n", err)
			return ExitFailure
		}
		if !written {
			fmt.Fprintf(e.stderr, "cqlgen diff: %s already holds this migration; nothing written\n", e.rel(path))
			continue
		}
		fmt.Fprintf(e.stdout, "  wrote %s\n", e.rel(path))
	}
	if m.machine() {
		m.report(found, false)
	}
	if breaking {
		return ExitStale
	}
	if onboard {
		return ExitFailure
	}
	return ExitOK
}

// onboarding checks each change that turns transactional_mode on
// (Cassandra 6) against the live table: refused, with the steps of the
// migration to Accord, over a table that holds rows and is not migrated.
func onboarding(s *gocql.Session, r *retrier, keyspace string, changes []schemadiff.Change) error {
	var errs []error
	for _, c := range changes {
		if !c.Transactional {
			continue
		}
		err := r.do(context.Background(), mayRepeat, "reading table "+c.Table, func(context.Context) error {
			return schemadiff.CheckOnboarding(s, keyspace, c.Table)
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// splitUnmanaged takes the Unmanaged changes out of changes and returns
// their tables.
func splitUnmanaged(changes []schemadiff.Change) (rest []schemadiff.Change, tables []string) {
	for _, c := range changes {
		if c.Kind == schemadiff.Unmanaged {
			tables = append(tables, c.Table)
		} else {
			rest = append(rest, c)
		}
	}
	return rest, tables
}

// printContract proposes the DROP TABLE of each deprecated table that is
// declared no more. It is never part of a migration: a migration runs at
// deploy time, while copies built with the table may still write it.
func printContract(e *env, changes []schemadiff.Change) {
	var drops []string
	for _, c := range changes {
		if c.Kind == schemadiff.Contract {
			drops = append(drops, c.CQL)
		}
	}
	if len(drops) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "  contract: once the deploy without the deprecated pattern(s) is complete, run by hand (never part of a migration):\n")
	for _, d := range drops {
		fmt.Fprintf(e.stdout, "    %s\n", d)
	}
}

// source is what diff compares the generated schema with.
type source struct {
	base     string // a schema file
	rev      string // a git revision
	live     bool   // the live cluster
	keyspace string // with live
	timeout  time.Duration
	getenv   func(string) string
	stderr   io.Writer // retries of -live's reads are reported here

	session      *gocql.Session // with live, once connected
	retrier      *retrier
	hosts        string
	usedKeyspace string // the keyspace last read
}

func (src *source) close() {
	if src.session != nil {
		src.session.Close()
	}
}

// previous reads the schema to compare p with: a base file, schema.cql at
// a git revision, the live cluster, or the committed schema.cql.
func (src *source) previous(p *pipeline.Package, script string) (*schemadiff.Schema, string, error) {
	switch {
	case src.live:
		return src.fromCluster(script)
	case src.rev != "":
		b, found, err := gitShow(p.Dir, src.rev, pipeline.SchemaFile)
		if err != nil {
			return nil, "", err
		}
		from := pipeline.SchemaFile + " at " + src.rev
		if !found {
			return &schemadiff.Schema{}, "no " + from, nil
		}
		schema, err := schemadiff.Parse(string(b))
		return schema, from, err
	}
	path := src.base
	if path == "" {
		path = filepath.Join(p.Dir, pipeline.SchemaFile)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && src.base == "" {
		return &schemadiff.Schema{}, "no committed schema.cql", nil
	}
	if err != nil {
		return nil, "", err
	}
	schema, err := schemadiff.Parse(string(b))
	return schema, path, err
}

// fromCluster reads the keyspace of the package (or -keyspace) from the
// cluster the environment names.
func (src *source) fromCluster(script string) (*schemadiff.Schema, string, error) {
	keyspace := src.keyspace
	if keyspace == "" {
		keyspace = keyspaceOf(script)
	}
	if keyspace == "" {
		return nil, "", errors.New("-live needs -keyspace, or a //cqlgen:keyspace directive in the package")
	}
	if src.session == nil {
		s, c, err := dial(src.getenv, src.timeout)
		if err != nil {
			return nil, "", err
		}
		src.session, src.hosts = s, strings.Join(c.Hosts, ",")
		src.retrier = c.retrier(src.stderr, "cqlgen diff")
	}
	src.usedKeyspace = keyspace
	schema, err := fromCluster(src.session, src.retrier, keyspace)
	return schema, "keyspace " + keyspace + " on " + src.hosts, err
}

// keyspaceOf returns the keyspace a generated schema.cql USEs, or "".
func keyspaceOf(script string) string {
	keyspace := ""
	for _, st := range cqlscript.Split(script) {
		if ks, ok := st.Use(); ok {
			keyspace = ks
		}
	}
	return keyspace
}

// gitShow reads file of the package folder dir as it was at the git
// revision rev. found is false when the revision has no such file (the
// package is new); an unknown revision, or a folder outside a git
// repository, is an error that says how to fix it.
func gitShow(dir, rev, file string) (content []byte, found bool, err error) {
	if strings.HasPrefix(rev, "-") {
		return nil, false, fmt.Errorf("-base-rev %q: a revision cannot start with '-'", rev)
	}
	verify := exec.Command("git", "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	verify.Dir = dir
	if out, err := verify.CombinedOutput(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return nil, false, fmt.Errorf("-base-rev needs git: %w", err)
		}
		top := exec.Command("git", "rev-parse", "--show-toplevel")
		top.Dir = dir
		if _, err := top.Output(); err != nil {
			return nil, false, fmt.Errorf("-base-rev: %s is not in a git repository", dir)
		}
		return nil, false, fmt.Errorf("-base-rev: git knows no commit %q%s (in CI, fetch it first: git fetch origin main, or actions/checkout with fetch-depth: 0)", rev, strings.TrimSpace(" "+string(out)))
	}
	// REV:./path is read relative to the folder git runs in.
	show := exec.Command("git", "cat-file", "blob", rev+":./"+file)
	show.Dir = dir
	var stderr strings.Builder
	show.Stderr = &stderr
	out, err := show.Output()
	if err != nil {
		// The commit exists (checked above): the file does not, in it.
		return nil, false, nil
	}
	return out, true, nil
}

// writeMigration writes the next numbered file of dir, in the layout
// cqlgen migrate (and gocqlx's migrate package) runs in order:
// 0001_name.cql, 0002_... When a file of dir already holds cql byte for
// byte, the change is in the folder, waiting to be applied: nothing is
// written, and path names that file.
func writeMigration(dir, name, cql string) (path string, written bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false, err
	}
	var existing []string
	for _, en := range entries {
		if strings.HasSuffix(en.Name(), ".cql") {
			existing = append(existing, en.Name())
		}
	}
	sort.Strings(existing)
	for _, f := range existing {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", false, err
		}
		if string(b) == cql {
			return filepath.Join(dir, f), false, nil
		}
	}
	n := 1
	if len(existing) > 0 {
		fmt.Sscanf(existing[len(existing)-1], "%d_", &n)
		n++
	}
	path = filepath.Join(dir, fmt.Sprintf("%04d_%s.cql", n, name))
	return path, true, os.WriteFile(path, []byte(cql), 0o644)
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString("    " + line)
		}
	}
	return b.String()
}

// breakingPlan is how to make a breaking change without losing reads.
const breakingPlan = `  the way through (docs/runbook.md, "changing a table's key"):
    1. expand: declare the new shape as a new pattern with a new table name, and mark the
       old one table:"old,deprecated" replaced_by:"new"; generate, and apply the additive
       migration (every write now fills both)
    2. backfill: cqlgen maintain backfill -entity E -table NEW -job NAME PKG
    3. verify:   cqlgen maintain verify -entity E -table NEW PKG
    4. switch reads to the new pattern's method, and deploy (diff checks the module's calls)
    5. contract: remove the old pattern; diff then proposes its DROP TABLE, to run by hand
`

// entityOf finds, in a generated schema.cql, the entity whose pattern a
// table serves: the "-- Entity.Method: ..." comment above its CREATE TABLE.
func entityOf(script, table string) string {
	entity := ""
	for _, line := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(line, "-- "); ok {
			if name, _, ok := strings.Cut(rest, ":"); ok {
				if ent, _, ok := strings.Cut(name, "."); ok && !strings.Contains(ent, " ") {
					entity = ent
				}
			}
		}
		if strings.HasPrefix(line, "CREATE TABLE IF NOT EXISTS "+table+" (") {
			return entity
		}
	}
	return ""
}
