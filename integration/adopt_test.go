package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
)

// adoptUse is a program of the user's module that changes rows another
// program wrote, through the imported entity's repository: Update,
// Modify, Delete, and an Insert of the values a row holds.
const adoptUse = `package main

import (
	"context"
	"fmt"
	"os"

	"example.com/shop/store"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "use:", err)
		os.Exit(1)
	}
	fmt.Println("use: ok")
}

func run() error {
	ctx := context.Background()
	cluster, err := gocqlv1.ClusterFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	cluster.Keyspace = os.Args[1]
	gs, err := gocqlv1.CreateSession(cluster)
	if err != nil {
		return err
	}
	defer gs.Close()
	orders := store.NewOrderRepo(gocqlv1.NewSession(gs, nil))
	o, err := orders.Get(ctx, "o00")
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	o.Total = 1000
	if err := orders.Update(ctx, o); err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if _, err := orders.Modify(ctx, "o01", func(o *store.Order) error { o.CustomerID = "c-moved"; return nil }); err != nil {
		return fmt.Errorf("modify: %w", err)
	}
	if err := orders.Delete(ctx, &store.Order{OrderID: "o02"}); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	same, err := orders.Get(ctx, "o03")
	if err != nil {
		return err
	}
	if err := orders.Insert(ctx, same); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	page, err := orders.ByCustomerID(ctx, "c-moved", nil)
	if err != nil || len(page.Rows) != 1 || page.Rows[0].OrderID != "o01" {
		return fmt.Errorf("the moved order by its new customer: %+v, %v", page.Rows, err)
	}
	return nil
}
`

// The runbook's "Adopting a keyspace that holds data", end to end, as a
// user runs it: a keyspace another program wrote (its DDL, its rows in
// both tables), imported live into a module of the user's, generated
// (-strict), diffed against the cluster with a migration written and
// run; a program of the user's changes the old rows through the
// repository; cqlgen maintain verifies (every row counted), finds a drift
// made by hand, repairs it; a new pattern is added, migrated, backfilled
// and verified. Every command's exit code is checked, and no step may
// pass over a row.
func TestAdoptionPath(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	applyScript(t, raw, `CREATE TABLE orders (order_id text PRIMARY KEY, customer_id text, placed_at timestamp, total int);
CREATE TABLE orders_by_customer (customer_id text, placed_at timestamp, order_id text, total int, PRIMARY KEY (customer_id, placed_at, order_id)) WITH CLUSTERING ORDER BY (placed_at DESC, order_id ASC);`)
	const n = 30
	for i := range n {
		id, customer := fmt.Sprintf("o%02d", i), fmt.Sprintf("c%02d", i%4)
		placed := visitDay.Add(time.Duration(7*i) * time.Minute)
		must(t, raw.Query(`INSERT INTO orders (order_id, customer_id, placed_at, total) VALUES (?, ?, ?, ?)`, id, customer, placed, i).Exec())
		must(t, raw.Query(`INSERT INTO orders_by_customer (customer_id, placed_at, order_id, total) VALUES (?, ?, ?, ?)`, customer, placed, id, i).Exec())
	}

	dir := t.TempDir()
	put := func(path, content string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
	}
	put("go.mod", "module example.com/shop\n\ngo 1.26\n\nrequire github.com/cqlgen/cqlgen v0.0.0\n\nreplace github.com/cqlgen/cqlgen => "+repoRoot+"\n\ntool github.com/cqlgen/cqlgen/cmd/cqlgen\n")
	sum, err := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	must(t, err)
	put("go.sum", string(sum))
	goIn(t, dir, nil, "mod", "tidy")
	env := []string{hostsEnv(t)}
	step := func(want int, args ...string) string {
		t.Helper()
		out, code := goIn(t, dir, env, append([]string{"tool", "cqlgen"}, args...)...)
		if code != want {
			t.Fatalf("cqlgen %s = %d, want %d\n%s", strings.Join(args, " "), code, want, out)
		}
		return out
	}

	out := step(0, "import", "-keyspace", ks, "-package", "store", "-driver", "v1", "-o", "store")
	if !strings.Contains(out, "merged orders and orders_by_customer into one entity, Order") {
		t.Errorf("import does not report its merge:\n%s", out)
	}
	goIn(t, dir, nil, "mod", "tidy")
	goIn(t, dir, nil, "generate", "./store")
	step(0, "generate", "-strict", "./store")

	// The cluster lacks the write protocol's columns: a migration adds them.
	out = step(0, "diff", "-live", "-keyspace", ks, "-migrations", "migrations", "./store")
	mig, err := filepath.Glob(filepath.Join(dir, "store", "migrations", "*.cql"))
	must(t, err)
	if len(mig) != 1 {
		t.Fatalf("diff -live -migrations wrote %d migrations, want 1\n%s", len(mig), out)
	}
	if b, _ := os.ReadFile(mig[0]); !strings.Contains(string(b), "cqlgen_version") {
		t.Fatalf("the migration does not add the protocol's columns:\n%s", b)
	}
	step(0, "migrate", "-keyspace", ks, "store/migrations")
	step(0, "migrate", "-keyspace", ks, "store/migrations") // nothing to do

	// The application changes old rows.
	put("cmd/use/main.go", adoptUse)
	if out, code := goIn(t, dir, env, "run", "./cmd/use", ks); code != 0 || !strings.Contains(out, "use: ok") {
		t.Fatalf("the program on old rows = %d\n%s", code, out)
	}

	out = step(0, "maintain", "verify", "-keyspace", ks, "./store")
	if !strings.Contains(out, "29 rows of orders") || !strings.Contains(out, "26 of them written outside cqlgen") || !strings.Contains(out, "1 deleted entities' graves") {
		t.Errorf("verify does not count every row:\n%s", out)
	}
	must(t, raw.Query(`DELETE FROM orders_by_customer WHERE customer_id = ? AND placed_at = ? AND order_id = ?`, "c02", visitDay.Add(70*time.Minute), "o10").Exec())
	out = step(1, "maintain", "verify", "-keyspace", ks, "./store")
	if !strings.Contains(out, "1 missing") {
		t.Errorf("verify after a drift made by hand:\n%s", out)
	}
	step(0, "maintain", "repair", "-keyspace", ks, "./store")

	// A new access pattern: migrated, backfilled from the old rows too.
	src, err := os.ReadFile(filepath.Join(dir, "store", "store.go"))
	must(t, err)
	pattern := regexp.MustCompile("(?m)^(\t_ cqlgen.Pattern `table:\"orders_by_customer\".*\n)")
	if !pattern.Match(src) {
		t.Fatalf("no orders_by_customer pattern in:\n%s", src)
	}
	src = pattern.ReplaceAll(src, []byte("$1\t_ cqlgen.Pattern `table:\"orders_by_total\" pk:\"customer_id\" ck:\"total desc, order_id\" size:\"rows=100\"`\n"))
	put("store/store.go", string(src))
	goIn(t, dir, nil, "generate", "./store")
	step(0, "diff", "-live", "-keyspace", ks, "-migrations", "migrations", "./store")
	step(0, "migrate", "-keyspace", ks, "store/migrations")
	out = step(0, "maintain", "backfill", "-keyspace", ks, "-table", "orders_by_total", "-job", "add-orders_by_total", "./store")
	if !strings.Contains(out, "wrote 29 rows") {
		t.Errorf("backfill:\n%s", out)
	}
	step(0, "maintain", "adopt", "-keyspace", ks, "-job", "stamp", "./store")
	out = step(0, "maintain", "verify", "-keyspace", ks, "./store")
	if !strings.Contains(out, "29 rows of orders") || strings.Contains(out, "written outside cqlgen") {
		t.Errorf("verify after adopt:\n%s", out)
	}
}
