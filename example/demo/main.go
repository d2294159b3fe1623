// Command demo is the README's main job: it applies the generated schema of
// the worked examples to the Cassandra named by CASSANDRA_HOSTS, shows the
// tables Cassandra now holds (read back from system_schema), loads a few
// thousand synthetic rows through the generated repositories, and prints
// the answer to each access pattern of the two seed designs.
//
//	make demo
//
// It owns its keyspaces (music, messaging, helpdesk): it drops and
// recreates them on every run. To run it next to other users of the same
// Cassandra, give their names a prefix, with -keyspace-prefix or
// CQLGEN_DEMO_KEYSPACE_PREFIX (which example/maintain reads too):
//
//	CQLGEN_DEMO_KEYSPACE_PREFIX=ann_ go run ./example/demo   # ann_music, ...
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

func main() {
	prefix := flag.String("keyspace-prefix", os.Getenv("CQLGEN_DEMO_KEYSPACE_PREFIX"), "put this before the name of every keyspace the demo drops, creates and loads (default $CQLGEN_DEMO_KEYSPACE_PREFIX)")
	flag.Parse()
	if !keyspaceWord.MatchString(*prefix) {
		fmt.Fprintf(os.Stderr, "demo: keyspace prefix %q: letters, digits and _ only\n", *prefix)
		os.Exit(2)
	}
	if err := run(context.Background(), *prefix); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// keyspaceWord is what a keyspace prefix may hold: the characters of an
// unquoted keyspace name.
var keyspaceWord = regexp.MustCompile(`^\w*$`)

func run(ctx context.Context, prefix string) error {
	hosts := os.Getenv("CASSANDRA_HOSTS")
	if hosts == "" {
		return fmt.Errorf("CASSANDRA_HOSTS is not set; run make demo, which starts a Cassandra, or set it to host:port")
	}
	cluster := gocql.NewCluster(strings.Split(hosts, ",")...)
	cluster.Timeout = 20 * time.Second
	cluster.ConnectTimeout = 20 * time.Second
	cluster.Consistency = gocql.One
	sessions := map[string]cqlgen.Session{}
	calls := newTally()
	for _, ex := range []struct{ name, schema string }{{"music", music.Schema}, {"messaging", messaging.Schema}, {"helpdesk", helpdesk.Schema}} {
		keyspace, n, err := apply(ctx, cluster, ex.schema, prefix)
		if err != nil {
			return fmt.Errorf("%s: %w", ex.name, err)
		}
		fmt.Printf("== example/%s: applied %d statements of schema.cql to keyspace %s\n\n", ex.name, n, keyspace)
		if err := show(ctx, cluster, keyspace); err != nil {
			return err
		}
		c := *cluster
		c.Keyspace = keyspace
		s, err := c.CreateSession()
		if err != nil {
			return err
		}
		defer s.Close()
		sessions[ex.name] = gocqlv1.NewSession(s, &cqlgen.SessionOptions{ReadConsistency: cqlgen.One, WriteConsistency: cqlgen.One, Observer: calls})
	}
	if err := runMusic(ctx, sessions["music"]); err != nil {
		return fmt.Errorf("music: %w", err)
	}
	if err := runMessaging(ctx, sessions["messaging"]); err != nil {
		return fmt.Errorf("messaging: %w", err)
	}
	fmt.Println()
	if err := runHelpdesk(ctx, sessions["helpdesk"]); err != nil {
		return fmt.Errorf("helpdesk: %w", err)
	}
	if err := runHelpdeskReads(ctx, sessions["helpdesk"]); err != nil {
		return fmt.Errorf("helpdesk reads: %w", err)
	}
	fmt.Println()
	calls.print()
	return nil
}

// withPrefix renames the keyspace a statement of a generated schema.cql
// creates or uses to prefix+name; other statements are left as they are.
func withPrefix(st cqlscript.Statement, prefix string) cqlscript.Statement {
	if prefix == "" {
		return st
	}
	if ks, ok := st.Use(); ok {
		st.Text = "USE " + prefix + ks
	} else if st.IsCreateKeyspace() {
		st.Text = createKeyspace.ReplaceAllString(st.Text, "${1}"+prefix+"${2}")
	}
	return st
}

var createKeyspace = regexp.MustCompile(`(?i)^(create\s+keyspace\s+(?:if\s+not\s+exists\s+)?)(\w+)`)

// apply executes a script, following its USE statements by switching to a
// session on that keyspace, as a driver cannot USE on a shared session.
// Each keyspace it creates and uses gets prefix before its name.
func apply(ctx context.Context, cluster *gocql.ClusterConfig, script, prefix string) (keyspace string, n int, err error) {
	session, err := cluster.CreateSession()
	if err != nil {
		return "", 0, err
	}
	defer func() { session.Close() }()
	// The demo owns its keyspaces: it drops them first, so that every run
	// starts from the committed schema.cql, whatever an earlier run left.
	var stmts []cqlscript.Statement
	for _, stmt := range cqlscript.Split(script) {
		stmts = append(stmts, withPrefix(stmt, prefix))
	}
	for _, stmt := range stmts {
		if ks, ok := stmt.Use(); ok {
			if err := session.Query("DROP KEYSPACE IF EXISTS " + ks).WithContext(ctx).Exec(); err != nil {
				return "", 0, err
			}
		}
	}
	for _, stmt := range stmts {
		if ks, ok := stmt.Use(); ok {
			session.Close()
			c := *cluster
			c.Keyspace = ks
			if session, err = c.CreateSession(); err != nil {
				return "", n, err
			}
			keyspace = ks
			n++
			continue
		}
		if err := session.Query(stmt.Text).WithContext(ctx).Exec(); err != nil {
			return "", n, fmt.Errorf("schema.cql line %d: %w", stmt.Line, err)
		}
		n++
	}
	return keyspace, n, nil
}

type column struct {
	name, kind, order, typ string
	position               int
}

// show prints each table of keyspace as Cassandra describes it.
func show(ctx context.Context, cluster *gocql.ClusterConfig, keyspace string) error {
	session, err := cluster.CreateSession()
	if err != nil {
		return err
	}
	defer session.Close()
	ttls := map[string]int{}
	var name string
	var ttl int
	iter := session.Query(`SELECT table_name, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ?`, keyspace).WithContext(ctx).Iter()
	for iter.Scan(&name, &ttl) {
		ttls[name] = ttl
	}
	if err := iter.Close(); err != nil {
		return err
	}
	cols := map[string][]column{}
	var c column
	iter = session.Query(`SELECT table_name, column_name, kind, clustering_order, type, position FROM system_schema.columns WHERE keyspace_name = ?`, keyspace).WithContext(ctx).Iter()
	for iter.Scan(&name, &c.name, &c.kind, &c.order, &c.typ, &c.position) {
		cols[name] = append(cols[name], c)
	}
	if err := iter.Close(); err != nil {
		return err
	}
	rank := map[string]int{"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}
	for _, table := range slices.Sorted(maps.Keys(cols)) {
		fmt.Printf("  %s.%s", keyspace, table)
		if ttls[table] > 0 {
			fmt.Printf("  (rows expire after %s)", cqlspec.HumanDuration(int64(ttls[table])))
		}
		fmt.Println()
		cs := cols[table]
		slices.SortFunc(cs, func(a, b column) int {
			return cmp.Or(cmp.Compare(rank[a.kind], rank[b.kind]), cmp.Compare(a.position, b.position), cmp.Compare(a.name, b.name))
		})
		width := 0
		for _, c := range cs {
			width = max(width, len(c.name))
		}
		for _, c := range cs {
			role := strings.ReplaceAll(c.kind, "_", " ")
			if c.kind == "clustering" {
				role += " " + strings.ToUpper(c.order)
			}
			if c.kind == "regular" {
				role = ""
			}
			fmt.Println(strings.TrimRight(fmt.Sprintf("    %-*s  %-10s %s", width, c.name, c.typ, role), " "))
		}
		fmt.Println()
	}
	return nil
}
