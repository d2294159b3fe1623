package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/gen/schemadiff"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

func runDiff(e *env, args []string) int {
	fs := newFlags(e, "diff", "[packages]")
	base := fs.String("base", "", "compare with this schema file instead of the committed schema.cql (one package only)")
	live := fs.Bool("live", false, "compare with the live cluster named by CASSANDRA_HOSTS")
	keyspace := fs.String("keyspace", "", "with -live: the keyspace to read (default: the package's //cqlgen:keyspace)")
	migrations := fs.String("migrations", "", "write additive changes as a numbered migration file into this directory, relative to each package")
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	res, code, ok := generate(e, fs.Args(), false)
	if !ok {
		return code
	}
	var pkgs []*gen.Package
	for _, p := range res.Packages {
		if p.Files[gen.SchemaFile] != nil {
			pkgs = append(pkgs, p)
		}
	}
	if *base != "" && len(pkgs) != 1 {
		fmt.Fprintf(e.stderr, "cqlgen diff: -base compares one package, and %d match\n", len(pkgs))
		return ExitUsage
	}
	breaking := false
	for _, p := range pkgs {
		script := string(p.Files[gen.SchemaFile])
		next, err := schemadiff.Parse(script)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: generated schema: %v\n", err)
			return ExitInternal
		}
		prev, from, err := previous(p, script, *base, *live, *keyspace)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: %s: %v\n", e.rel(p.Dir), err)
			return ExitFailure
		}
		changes := schemadiff.Compare(prev, next)
		if len(changes) == 0 {
			fmt.Fprintf(e.stdout, "%s: no changes against %s\n", e.rel(p.Dir), e.rel(from))
			continue
		}
		fmt.Fprintf(e.stdout, "%s: %d change(s) against %s\n", e.rel(p.Dir), len(changes), e.rel(from))
		for _, c := range changes {
			fmt.Fprintf(e.stdout, "  %s\n", c)
		}
		cql, ok := schemadiff.Migration(changes)
		if !ok {
			breaking = true
			fmt.Fprintf(e.stdout, "  breaking changes cannot be applied in place: no migration written\n")
			fmt.Fprint(e.stdout, breakingPlan)
			continue
		}
		for _, c := range changes {
			if c.What == "new table" && !strings.HasPrefix(c.Table, "cqlgen_") {
				if entity := entityOf(script, c.Table); entity != "" {
					fmt.Fprintf(e.stdout, "  then fill %s from its source of truth, resumably:\n    <your maintenance command> backfill -entity %s -table %s -job add-%s\n  (cqlgen.RunMaintenance; docs/runbook.md)\n", c.Table, entity, c.Table, c.Table)
				}
			}
		}
		if *migrations == "" {
			fmt.Fprintf(e.stdout, "  migration (write it with -migrations DIR):\n%s", indent(cql))
			continue
		}
		dir := *migrations
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(p.Dir, dir)
		}
		path, err := writeMigration(dir, filepath.Base(p.Dir), cql)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen diff: %v\n", err)
			return ExitFailure
		}
		fmt.Fprintf(e.stdout, "  wrote %s\n", e.rel(path))
	}
	if breaking {
		return ExitStale
	}
	return ExitOK
}

// previous reads the schema to compare with: a base file, the committed
// schema.cql, or the live cluster.
func previous(p *gen.Package, script, base string, live bool, keyspace string) (*schemadiff.Schema, string, error) {
	if live {
		if keyspace == "" {
			for _, st := range cqlscript.Split(script) {
				if ks, ok := st.Use(); ok {
					keyspace = ks
				}
			}
		}
		if keyspace == "" {
			return nil, "", errors.New("-live needs -keyspace, or a //cqlgen:keyspace directive in the package")
		}
		hosts := os.Getenv("CASSANDRA_HOSTS")
		if hosts == "" {
			return nil, "", errors.New("-live reads the cluster named by CASSANDRA_HOSTS, which is not set")
		}
		cluster := gocql.NewCluster(strings.Split(hosts, ",")...)
		cluster.Timeout = 10 * time.Second
		cluster.ConnectTimeout = 10 * time.Second
		s, err := cluster.CreateSession()
		if err != nil {
			return nil, "", err
		}
		defer s.Close()
		schema, err := schemadiff.FromCluster(s, keyspace)
		return schema, "keyspace " + keyspace + " on " + hosts, err
	}
	path := base
	if path == "" {
		path = filepath.Join(p.Dir, gen.SchemaFile)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && base == "" {
		return &schemadiff.Schema{}, "no committed schema.cql", nil
	}
	if err != nil {
		return nil, "", err
	}
	schema, err := schemadiff.Parse(string(b))
	return schema, path, err
}

// writeMigration writes the next numbered file of dir, in the layout
// gocqlx's migrate package runs in name order: 0001_name.cql, 0002_...
func writeMigration(dir, name, cql string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var existing []string
	for _, en := range entries {
		if strings.HasSuffix(en.Name(), ".cql") {
			existing = append(existing, en.Name())
		}
	}
	sort.Strings(existing)
	n := 1
	if len(existing) > 0 {
		fmt.Sscanf(existing[len(existing)-1], "%d_", &n)
		n++
	}
	path := filepath.Join(dir, fmt.Sprintf("%04d_%s.cql", n, name))
	return path, os.WriteFile(path, []byte(cql), 0o644)
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
    1. expand: declare the new shape as a new pattern with a new table name, keep the old
       one; generate, and apply the additive migration (every write now fills both)
    2. backfill: <your maintenance command> backfill -entity E -table NEW -job NAME
    3. verify:   <your maintenance command> verify -entity E -table NEW
    4. switch reads to the new pattern's method, and deploy
    5. drop: remove the old pattern; drop its table by hand once nothing reads it
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
