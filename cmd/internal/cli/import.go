package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/token"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"golang.org/x/mod/modfile"

	"github.com/cqlgen/cqlgen/internal/importer"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// runImport writes the declarations of an existing keyspace, read from a
// CQL file or from the cluster CASSANDRA_HOSTS names, as a Go package.
func runImport(e *env, fs *flag.FlagSet, args []string) int {
	keyspace := fs.String("keyspace", "", "read the keyspace K from the cluster CASSANDRA_HOSTS names, instead of a CQL file")
	out := fs.String("o", ".", "the folder of the package to write")
	pkg := fs.String("package", "", "the Go package name (default: the folder's name, else the keyspace's, else model)")
	file := fs.String("file", "", "the Go file to write in the folder (default: PACKAGE.go)")
	force := fs.Bool("force", false, "overwrite the Go file if it exists")
	dryRun := fs.Bool("n", false, "print the Go file instead of writing it")
	driverFlag := fs.String("driver", "", "the Go driver whose UUID and Duration types the fields hold: v1 (github.com/gocql/gocql) or v2 (github.com/apache/cassandra-gocql-driver/v2)\n(default: the one the go.mod above -o requires, else v1)")
	noMerge := fs.Bool("no-merge", false, "keep one entity per table: merge no tables into one entity, whose source of truth would gain the write protocol's columns and take a conditional write (a Paxos round) on every write")
	timeout := timeoutFlag(fs)
	if !parseTimed(e, fs, args, timeout) {
		return ExitUsage
	}
	driver, ok := importDrivers[*driverFlag]
	if !ok {
		fmt.Fprintf(e.stderr, "cqlgen import: -driver %q: want v1 (github.com/gocql/gocql) or v2 (github.com/apache/cassandra-gocql-driver/v2)\n", *driverFlag)
		return ExitUsage
	}
	if (fs.NArg() == 1) == (*keyspace != "") || fs.NArg() > 1 {
		fmt.Fprintln(e.stderr, "cqlgen import: give one CQL file, or -keyspace K to read a live keyspace")
		fs.Usage()
		return ExitUsage
	}
	name := *pkg
	if name == "" {
		abs, _ := filepath.Abs(*out)
		name = packageName(filepath.Base(abs))
		if name == "" {
			name = packageName(*keyspace)
		}
		if name == "" {
			name = "model"
		}
	}
	if !token.IsIdentifier(name) || token.IsKeyword(name) {
		fmt.Fprintf(e.stderr, "cqlgen import: -package %q is not a Go package name\n", name)
		return ExitUsage
	}
	if *file == "" {
		*file = name + ".go"
	}
	target := filepath.Join(*out, *file)
	if !*dryRun && !*force {
		if _, err := os.Stat(target); err == nil {
			fmt.Fprintf(e.stderr, "cqlgen import: %s exists; refusing to overwrite it (give -force, or another -o or -file)\n", e.rel(target))
			return ExitFailure
		} else if !errors.Is(err, iofs.ErrNotExist) {
			fmt.Fprintf(e.stderr, "cqlgen import: %v\n", err)
			return ExitFailure
		}
	}
	driverWhy := ""
	if driver == "" {
		var gomod string
		if driver, gomod = moduleDriver(*out); gomod != "" {
			driverWhy = ", which " + e.rel(gomod) + " requires (-driver v1|v2 chooses)"
		}
	}
	opts := importer.Options{Package: name, Driver: driver, NoMerge: *noMerge}
	var res *importer.Result
	var err error
	if *keyspace != "" {
		res, err = importLive(e, *keyspace, opts, *timeout)
	} else {
		path := fs.Arg(0)
		var script []byte
		if script, err = os.ReadFile(path); err == nil {
			opts.Source = filepath.Base(path)
			res, err = importer.FromCQL(e.rel(path), string(script), opts)
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen import: %v\n", err)
		return ExitFailure
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stderr, "%s: note: %s\n", n.Pos, n.Text)
	}
	if *dryRun {
		e.stdout.Write(res.Source)
		return ExitOK
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen import: %v\n", err)
		return ExitFailure
	}
	if err := os.WriteFile(target, res.Source, 0o644); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen import: %v\n", err)
		return ExitFailure
	}
	tables, merged, skipped := 0, 0, 0
	for _, en := range res.Entities {
		tables += len(en.Tables)
		if en.Merged {
			merged++
		}
	}
	for _, n := range res.Notes {
		if n.Skipped {
			skipped++
		}
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d entities for %d tables (%d merged from several tables), %d not declared, %d note(s); fields of the %s driver%s\n",
		e.rel(target), len(res.Entities), tables, merged, skipped, len(res.Notes), driverLabel(driver), driverWhy)
	if len(res.Ignores) > 0 {
		count := map[string]int{}
		for _, ig := range res.Ignores {
			count[ig.Code]++
		}
		var codes []string
		for _, c := range slices.Sorted(maps.Keys(count)) {
			codes = append(codes, fmt.Sprintf("%s %d", c, count[c]))
		}
		fmt.Fprintf(e.stdout, "silenced %d warning(s) over what the deployed tables are (%s), each with ignore:\"code: import: ...\" on its pattern: grep -n import: %s\n",
			len(res.Ignores), strings.Join(codes, ", "), e.rel(target))
	}
	fmt.Fprintf(e.stdout, "next: cqlgen generate -strict %s, then cqlgen diff -live to compare with the keyspace\n", packageArg(e.rel(*out)))
	return ExitOK
}

func importLive(e *env, keyspace string, opts importer.Options, timeout time.Duration) (*importer.Result, error) {
	s, c, err := dial(e.getenv, timeout)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	r := c.retrier(e.stderr, "cqlgen import")
	if ok, err := tableExists(s, r, keyspace, ""); err != nil || !ok {
		if err == nil {
			err = gocql.ErrNotFound
		}
		return nil, fmt.Errorf("keyspace %s on %s: %w", keyspace, strings.Join(c.Hosts, ","), err)
	}
	sc, err := fromCluster(s, r, keyspace)
	if err != nil {
		return nil, fmt.Errorf("reading keyspace %s: %w", keyspace, err)
	}
	// system_schema.columns holds the columns of materialized views too:
	// they are no tables of the import's.
	opts.Source, opts.Keyspace = "keyspace "+keyspace, keyspace
	var views []string
	err = r.do(context.Background(), mayRepeat, "reading the views of keyspace "+keyspace, func(ctx context.Context) error {
		views = nil
		var view string
		it := s.Query(`SELECT view_name FROM system_schema.views WHERE keyspace_name = ?`, keyspace).WithContext(ctx).Iter()
		for it.Scan(&view) {
			views = append(views, view)
		}
		return it.Close()
	})
	if err != nil {
		return nil, fmt.Errorf("reading the views of keyspace %s: %w", keyspace, err)
	}
	for _, view := range views {
		opts.Views = append(opts.Views, importer.Note{Pos: keyspace + "." + view, Table: view})
		sc.Tables = slices.DeleteFunc(sc.Tables, func(t *schemadiff.Table) bool { return t.Name == view })
	}
	return importer.Import(sc, opts)
}

// importDrivers are import's -driver values: v1 and v2, and the names
// generate's -driver gives them; "" lets moduleDriver decide.
var importDrivers = map[string]string{"": "", "v1": model.GocqlPath, "v2": model.GocqlV2Path, "gocql": model.GocqlPath, "gocqlv2": model.GocqlV2Path}

func driverLabel(path string) string {
	if path == model.GocqlV2Path {
		return "v2 (" + path + ")"
	}
	return "v1 (" + path + ")"
}

// moduleDriver is the driver the go.mod above dir requires, as generate
// decides it for a package whose fields name none: the one required
// directly, then the one required at all; gocql v1 when it requires both
// or neither, or there is no go.mod. gomod is the go.mod that decided,
// "" for the default.
func moduleDriver(dir string) (path, gomod string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return model.GocqlPath, ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		gomod = filepath.Join(d, "go.mod")
		data, err := os.ReadFile(gomod)
		if err != nil {
			if filepath.Dir(d) == d {
				return model.GocqlPath, ""
			}
			continue
		}
		f, err := modfile.ParseLax(gomod, data, nil)
		if err != nil {
			return model.GocqlPath, ""
		}
		for _, directOnly := range []bool{true, false} {
			var v1, v2 bool
			for _, r := range f.Require {
				if directOnly && r.Indirect {
					continue
				}
				v1 = v1 || r.Mod.Path == model.GocqlPath
				v2 = v2 || r.Mod.Path == model.GocqlV2Path
			}
			if v1 != v2 {
				if v2 {
					return model.GocqlV2Path, gomod
				}
				return model.GocqlPath, gomod
			}
		}
		return model.GocqlPath, ""
	}
}

// packageName makes a Go package name of a folder's or keyspace's name,
// or "".
func packageName(s string) string {
	s = strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(s, "-", ""), "_", ""))
	if !token.IsIdentifier(s) || token.IsKeyword(s) {
		return ""
	}
	return s
}

func packageArg(dir string) string {
	if dir == "." || filepath.IsAbs(dir) || strings.HasPrefix(dir, ".") {
		return dir
	}
	return "./" + dir
}
