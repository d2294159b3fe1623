package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// runApply creates the tables of each package's schema.cql on the cluster
// the environment names. Every statement of a generated schema.cql is
// CREATE ... IF NOT EXISTS, so apply may run again at will; it then
// compares the keyspace with the declarations, because IF NOT EXISTS
// leaves a table of another shape as it is: it runs the additive changes
// that diff would propose (ALTER TABLE ... ADD, ... WITH an option or the
// comment of a deprecated table), and reports the breaking ones.
func runApply(e *env, fs *flag.FlagSet, args []string) int {
	keyspace := fs.String("keyspace", "", "create the tables in this keyspace, which must exist (default: the package's //cqlgen:keyspace, created if missing)")
	dryRun := fs.Bool("n", false, "print the statements and connect to nothing")
	timeout := timeoutFlag(fs)
	if !parseTimed(e, fs, args, timeout) {
		return ExitUsage
	}
	pkgs, code, ok := schemaPackages(e, fs.Args())
	if !ok {
		return code
	}
	if len(pkgs) == 0 {
		fmt.Fprintln(e.stderr, "cqlgen apply: no package declares entities")
		return ExitUsage
	}
	if *keyspace != "" && len(pkgs) > 1 {
		fmt.Fprintf(e.stderr, "cqlgen apply: -keyspace puts one package's tables in a keyspace, and %d packages match\n", len(pkgs))
		return ExitUsage
	}
	// What is applied is what was reviewed: the schema.cql on disk, which
	// must be what the declarations generate.
	for _, p := range pkgs {
		path := filepath.Join(p.Dir, pipeline.SchemaFile)
		disk, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(disk, p.Files[pipeline.SchemaFile]) {
			fmt.Fprintf(e.stderr, "cqlgen apply: %s is missing or stale: run go generate (or cqlgen generate) and commit it first\n", e.rel(path))
			return ExitStale
		}
	}
	var plans []applyPlan
	for _, p := range pkgs {
		plan, err := planApply(string(p.Files[pipeline.SchemaFile]), *keyspace)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen apply: %s: %v\n", e.rel(p.Dir), err)
			return ExitUsage
		}
		plan.dir = p.Dir
		plans = append(plans, plan)
	}
	if *dryRun {
		for _, plan := range plans {
			fmt.Fprintf(e.stdout, "-- %s: keyspace %s\n", e.rel(plan.dir), plan.keyspace)
			for _, st := range plan.stmts {
				fmt.Fprintf(e.stdout, "%s;\n", st.Text)
			}
		}
		return ExitOK
	}
	s, c, err := dial(e.getenv, *timeout)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen apply: %v\n", err)
		return ExitFailure
	}
	defer s.Close()
	r := c.retrier(e.stderr, "cqlgen apply")
	stale := false
	for _, plan := range plans {
		n, err := plan.run(s, c, r)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen apply: %s: %v\n", e.rel(filepath.Join(plan.dir, pipeline.SchemaFile)), explainDenied(err))
			return ExitFailure
		}
		fmt.Fprintf(e.stdout, "%s: %d statement(s) applied to keyspace %s on %s\n", e.rel(plan.dir), n, plan.keyspace, strings.Join(c.Hosts, ","))
		// IF NOT EXISTS skips a table that exists in another shape: run
		// the additive changes diff proposes for it (a new column, an
		// option, the comment of a deprecated table), then compare again.
		want, err := schemadiff.Parse(plan.script)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen apply: %v\n", err)
			return ExitInternal
		}
		live, err := fromCluster(s, r, plan.keyspace)
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen apply: reading keyspace %s back: %v\n", plan.keyspace, err)
			return ExitFailure
		}
		var alters []schemadiff.Change
		for _, ch := range schemadiff.CompareLive(live, want) {
			if ch.Kind == schemadiff.Additive && ch.CQL != "" && !strings.HasPrefix(ch.CQL, "--") {
				alters = append(alters, ch)
			}
		}
		if err := onboarding(s, r, plan.keyspace, alters); err != nil {
			// Cassandra 6: transactional_mode turned on over a table
			// that holds rows not migrated to Accord.
			fmt.Fprintf(e.stderr, "cqlgen apply: keyspace %s: %v\n", plan.keyspace, err)
			return ExitFailure
		}
		if len(alters) > 0 {
			if err := plan.alter(c, r, alters, func(ch schemadiff.Change) {
				fmt.Fprintf(e.stdout, "  applied in place: %s\n", ch)
			}); err != nil {
				fmt.Fprintf(e.stderr, "cqlgen apply: keyspace %s: %v\n", plan.keyspace, explainDenied(err))
				return ExitFailure
			}
			if live, err = fromCluster(s, r, plan.keyspace); err != nil {
				fmt.Fprintf(e.stderr, "cqlgen apply: reading keyspace %s back: %v\n", plan.keyspace, err)
				return ExitFailure
			}
		}
		var differ []string
		for _, ch := range schemadiff.CompareLive(live, want) {
			if ch.Kind != schemadiff.Unmanaged && ch.Kind != schemadiff.Contract {
				differ = append(differ, ch.String())
			}
		}
		if len(differ) > 0 {
			stale = true
			fmt.Fprintf(e.stdout, "  the keyspace still differs from the declarations (a table existed in another shape, which only a new table can fix):\n")
			for _, d := range differ {
				fmt.Fprintf(e.stdout, "    %s\n", d)
			}
			fmt.Fprintf(e.stdout, "  see: cqlgen diff -live -keyspace %s, and docs/runbook.md\n", plan.keyspace)
		}
	}
	if stale {
		return ExitStale
	}
	return ExitOK
}

// applyPlan is the statements of one package's schema.cql to run, and
// where.
type applyPlan struct {
	dir      string
	script   string
	keyspace string
	stmts    []cqlscript.Statement // CREATE KEYSPACE first, if it is to run; no USE
}

// planApply picks the keyspace and the statements of a generated script.
// With keyspace given, the script's own CREATE KEYSPACE and USE are left
// out: a keyspace's replication is an operator's choice, so it must exist.
func planApply(script, keyspace string) (applyPlan, error) {
	plan := applyPlan{script: script, keyspace: keyspace}
	for _, st := range cqlscript.Split(script) {
		if ks, ok := st.Use(); ok {
			if keyspace == "" {
				plan.keyspace = ks
			}
			continue
		}
		if st.IsCreateKeyspace() && keyspace != "" {
			continue
		}
		plan.stmts = append(plan.stmts, st)
	}
	if plan.keyspace == "" {
		return plan, fmt.Errorf("no keyspace: give -keyspace K, or declare one in the package with //cqlgen:keyspace NAME {replication}")
	}
	return plan, nil
}

// run executes the plan's statements in order: CREATE KEYSPACE on s,
// when the keyspace does not exist, every other statement on a session of
// the plan's keyspace. Each is CREATE ... IF NOT EXISTS, which r retries,
// and r waits for schema agreement after each one.
func (plan applyPlan) run(s *gocql.Session, c *clusterEnv, r *retrier) (int, error) {
	exists, err := tableExists(s, r, plan.keyspace, "")
	if err != nil {
		return 0, err
	}
	n := 0
	var ks *gocql.Session
	defer func() {
		if ks != nil {
			ks.Close()
		}
	}()
	for _, st := range plan.stmts {
		if st.IsCreateKeyspace() {
			if exists {
				// Not even with IF NOT EXISTS: Cassandra checks CREATE
				// on ALL KEYSPACES before it looks, and a role allowed
				// only its keyspace would be refused.
				continue
			}
			if err := r.exec(s, st.Text); err != nil {
				return n, fmt.Errorf("line %d: %w", st.Line, err)
			}
			exists = true
			n++
			continue
		}
		if !exists {
			return n, fmt.Errorf("keyspace %s does not exist: create it first, with the replication your cluster needs", plan.keyspace)
		}
		if ks == nil {
			var err error
			if ks, err = c.session(plan.keyspace); err != nil {
				return n, fmt.Errorf("keyspace %s: %w", plan.keyspace, err)
			}
		}
		if err := r.exec(ks, st.Text); err != nil {
			return n, fmt.Errorf("line %d: %w\n\t%s", st.Line, err, strings.ReplaceAll(st.Text, "\n", "\n\t"))
		}
		n++
	}
	return n, nil
}

// alter runs the statements of additive changes on a session of the
// plan's keyspace, reporting each one done. Each may run again: WITH of
// an option's declared value as it is, ADD of a column the table lacks
// taking "already exists" on a retry as done (classify).
func (plan applyPlan) alter(c *clusterEnv, r *retrier, changes []schemadiff.Change, done func(schemadiff.Change)) error {
	ks, err := c.session(plan.keyspace)
	if err != nil {
		return err
	}
	defer ks.Close()
	for _, ch := range changes {
		stmt := strings.TrimSuffix(strings.TrimSpace(ch.CQL), ";")
		if err := r.exec(ks, stmt); err != nil {
			return fmt.Errorf("%s: %w\n\t%s", ch, err, stmt)
		}
		done(ch)
	}
	return nil
}

// fromCluster reads keyspace's schema, all of it again after an attempt
// that failed in a way that may pass: reads may run twice.
func fromCluster(s *gocql.Session, r *retrier, keyspace string) (*schemadiff.Schema, error) {
	var schema *schemadiff.Schema
	err := r.do(context.Background(), mayRepeat, "reading keyspace "+keyspace, func(context.Context) error {
		var err error
		schema, err = schemadiff.FromCluster(s, keyspace)
		return err
	})
	return schema, err
}
