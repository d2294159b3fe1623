package cli

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/importer"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// runImport writes the declarations of an existing keyspace, read from a
// CQL file or from the cluster CASSANDRA_HOSTS names, as a Go package.
func runImport(e *env, args []string) int {
	fs := newFlags(e, "import", "FILE.cql | -keyspace K")
	keyspace := fs.String("keyspace", "", "read the keyspace K from the cluster CASSANDRA_HOSTS names, instead of a CQL file")
	out := fs.String("o", ".", "the folder of the package to write")
	pkg := fs.String("package", "", "the Go package name (default: the folder's name, else the keyspace's, else model)")
	file := fs.String("file", "", "the Go file to write in the folder (default: PACKAGE.go)")
	force := fs.Bool("force", false, "overwrite the Go file if it exists")
	dryRun := fs.Bool("n", false, "print the Go file instead of writing it")
	timeout := timeoutFlag(fs)
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	if err := checkTimeout(*timeout); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen import: %v\n", err)
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
	var res *importer.Result
	var err error
	if *keyspace != "" {
		res, err = importLive(e, *keyspace, name, *timeout)
	} else {
		path := fs.Arg(0)
		var script []byte
		if script, err = os.ReadFile(path); err == nil {
			res, err = importer.FromCQL(e.rel(path), string(script), importer.Options{Package: name, Source: filepath.Base(path)})
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
	fmt.Fprintf(e.stdout, "wrote %s: %d entities for %d tables (%d merged from several tables), %d not declared, %d note(s)\n",
		e.rel(target), len(res.Entities), tables, merged, skipped, len(res.Notes))
	fmt.Fprintf(e.stdout, "next: cqlgen generate %s, then cqlgen diff -live to compare with the keyspace\n", packageArg(e.rel(*out)))
	return ExitOK
}

func importLive(e *env, keyspace, pkg string, timeout time.Duration) (*importer.Result, error) {
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
	opts := importer.Options{Package: pkg, Source: "keyspace " + keyspace, Keyspace: keyspace}
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
