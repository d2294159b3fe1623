package cli

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// runMigrate applies the numbered migration files of a folder (the ones
// diff -migrations writes) to a keyspace, in order, once each.
//
// The keyspace keeps a ledger, cqlgen_migrations: a row a file, with the
// file's checksum and how many of its statements have run. Statements run
// one by one and the ledger moves after each, so a run that stops midway
// (a failed statement, a crash) is resumed at the statement that did not
// complete. A crash can fall between a statement and its record: the
// statement a run resumes at may have run already, so "already exists"
// from it counts as done.
//
// Two runs never migrate at once: a run takes a lease, a row of
// cqlgen_migrations_lock written with a lightweight transaction (INSERT
// IF NOT EXISTS) and a TTL, renews it while it runs, and deletes it when
// done. A run that finds the lease taken waits up to -wait for it; the
// lease of a run that crashed expires within -lease of its last renewal.
// A run that cannot renew its lease stops before its next statement.
//
// A run with nothing to do only reads: the ledgers and system_schema. It
// creates the ledger's tables (when missing) and takes the lease only
// when the folder holds work, and plans again under the lease.
//
// Every statement has -timeout, retries included. Which are retried
// after an attempt with no reply, and why that is safe:
//   - reads, and the ledger's DDL (CREATE TABLE IF NOT EXISTS);
//   - the ledger's writes: each sets absolute values (the row's done
//     count, checksum, times computed once before the first attempt)
//     with a client-side timestamp, so a retry writes the same cells, and
//     a late first attempt loses to any later write by its older
//     timestamp;
//   - the lease's conditional writes: taking it (INSERT IF NOT EXISTS)
//     again after an attempt that applied finds the row with this run's
//     own owner, which counts as taken; renewing (UPDATE IF owner = me)
//     and releasing (DELETE IF owner = me) test the owner each time;
//   - a migration's statements as classify says: reads, IF [NOT] EXISTS
//     DDL and ALTER ... WITH; CREATE and ALTER ... ADD without IF NOT
//     EXISTS, taking "already exists" on a retry as done (as a resumed
//     run does); nothing else (an UPDATE of a counter would count twice),
//     unless the coordinator said it did not run it (unavailable,
//     overloaded).
func runMigrate(e *env, fs *flag.FlagSet, args []string) int {
	keyspace := fs.String("keyspace", "", "the keyspace to migrate, which must exist (required)")
	wait := fs.Duration("wait", 5*time.Minute, "how long to wait for the lock another run holds; 0: fail at once")
	lease := fs.Duration("lease", time.Minute, "the lock's lease: a run that stops renewing it (a crash) frees the lock this long after its last renewal")
	dryRun := fs.Bool("n", false, "print what would run, reading the ledger but writing nothing and taking no lock")
	timeout := timeoutFlag(fs)
	if !parseTimed(e, fs, args, timeout) {
		return ExitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "cqlgen migrate: name one folder of migrations, as diff -migrations writes them: cqlgen migrate -keyspace K DIR")
		return ExitUsage
	}
	if *keyspace == "" {
		fmt.Fprintln(e.stderr, "cqlgen migrate: -keyspace is required: the keyspace the migrations' statements run in")
		return ExitUsage
	}
	if *lease < 3*time.Second || *lease%time.Second != 0 {
		fmt.Fprintf(e.stderr, "cqlgen migrate: -lease %s: want whole seconds, at least 3s\n", *lease)
		return ExitUsage
	}
	dir := fs.Arg(0)
	files, err := loadMigrations(dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen migrate: %v\n", err)
		return ExitFailure
	}
	s, c, err := dial(e.getenv, *timeout)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen migrate: %v\n", err)
		return ExitFailure
	}
	defer s.Close()
	r := c.retrier(e.stderr, "cqlgen migrate")
	if ok, err := tableExists(s, r, *keyspace, ""); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen migrate: %v\n", err)
		return ExitFailure
	} else if !ok {
		fmt.Fprintf(e.stderr, "cqlgen migrate: keyspace %s does not exist: create it first (cqlgen apply creates a package's), with the replication your cluster needs\n", *keyspace)
		return ExitFailure
	}
	ks, err := c.session(*keyspace)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen migrate: keyspace %s: %v\n", *keyspace, err)
		return ExitFailure
	}
	defer ks.Close()
	m := &migrator{e: e, s: ks, r: r, keyspace: *keyspace, dir: dir}
	if *dryRun {
		return m.dryRun(files)
	}
	// Nothing to do: say so having only read. Otherwise plan again
	// under the lease, which another run may hold.
	if steps, code := m.steps(files); code != ExitOK {
		return code
	} else if len(steps) == 0 {
		m.nothingToDo(files)
		return ExitOK
	}
	for _, t := range []struct{ name, ddl string }{{ledgerTable, ledgerDDL}, {lockTable, lockDDL}} {
		// Only when missing: CREATE TABLE IF NOT EXISTS asks for CREATE
		// on the keyspace even when the table exists.
		ok, err := tableExists(ks, r, *keyspace, t.name)
		if err == nil && !ok {
			err = r.exec(ks, t.ddl)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "cqlgen migrate: keyspace %s: creating the ledger (%s): %v\n", *keyspace, t.name, explainDenied(err))
			return ExitFailure
		}
	}
	l, err := takeLease(e, ks, r, *keyspace, *lease, *wait)
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen migrate: %v\n", explainDenied(err))
		return ExitFailure
	}
	defer l.release()
	m.lease = l
	return m.run(files)
}

// The ledger's tables, in the migrated keyspace. diff -live leaves them
// out of what it compares (schemadiff.RunnerTables names them too).
const (
	ledgerTable = cqlspec.MigrationsTable
	lockTable   = cqlspec.MigrationsLockTable
	gocqlxTable = "gocqlx_migrate" // gocqlx's migrate package's ledger, read to take over from it
)

var ledgerDDL = `CREATE TABLE IF NOT EXISTS ` + ledgerTable + ` (
    name       text PRIMARY KEY,
    checksum   text,
    statements int,
    done       int,
    applied    text,
    started    timestamp,
    finished   timestamp,
    applied_by text,
    imported   text
) WITH comment = 'cqlgen migrate: a row a migration file; done of its statements have run, in order'`

var lockDDL = `CREATE TABLE IF NOT EXISTS ` + lockTable + ` (
    name  text PRIMARY KEY,
    owner text,
    since timestamp
) WITH comment = 'cqlgen migrate: the lease of the run that migrates the keyspace; it expires unless renewed'`

// lockRow is the one row of the lock table.
const lockRow = "migrate"

// migration is one file of the folder.
type migration struct {
	name   string
	number int
	sum    string // "sha256:" and the hex digest of the file's bytes
	md5    string // hex MD5 of the file's bytes, the checksum gocqlx records
	stmts  []cqlscript.Statement
	gocqlx int // how many statements gocqlx's migrate counts in the file
}

var migrationName = regexp.MustCompile(`^(\d+)_.*\.cql$`)

// callComment is a gocqlx callback, a statement of Go code that cqlgen
// cannot run.
var callComment = regexp.MustCompile(`(?m)^\s*-- *CALL +.+;\s*$`)

// loadMigrations reads the *.cql files of dir, ordered by their number
// (then name).
func loadMigrations(dir string) ([]*migration, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*migration
	for _, en := range entries {
		if en.IsDir() || !strings.HasSuffix(en.Name(), ".cql") {
			continue
		}
		path := filepath.Join(dir, en.Name())
		mt := migrationName.FindStringSubmatch(en.Name())
		if mt == nil {
			return nil, fmt.Errorf("%s: a migration's name starts with its number, as diff -migrations writes them (0001_name.cql)", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		n, _ := strconv.Atoi(mt[1])
		mg, err := parseMigration(en.Name(), n, b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		out = append(out, mg)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no migration (*.cql): write one with cqlgen diff -migrations %s", dir, dir)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].number != out[j].number {
			return out[i].number < out[j].number
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

func parseMigration(name string, number int, b []byte) (*migration, error) {
	sum := sha256.Sum256(b)
	m5 := md5.Sum(b)
	mg := &migration{name: name, number: number, sum: "sha256:" + hex.EncodeToString(sum[:]), md5: hex.EncodeToString(m5[:]),
		stmts: cqlscript.Split(string(b)), gocqlx: gocqlxCount(string(b))}
	if len(mg.stmts) == 0 {
		return nil, errors.New("holds no statement")
	}
	for _, st := range mg.stmts {
		if _, ok := st.Use(); ok {
			return nil, fmt.Errorf("line %d: USE: a migration runs in the keyspace -keyspace names, and cannot switch", st.Line)
		}
	}
	if loc := callComment.FindIndex(b); loc != nil {
		return nil, fmt.Errorf("line %d: a gocqlx callback (-- CALL name;) runs Go code, which cqlgen migrate cannot: run that step in your program", strings.Count(string(b[:loc[0]]), "\n")+1)
	}
	return mg, nil
}

// gocqlxCount is how many statements gocqlx's migrate counts in a file (its
// ledger's done column counts them): it cuts at every semicolon, and
// counts a last piece that is not blank.
func gocqlxCount(s string) int {
	n := strings.Count(s, ";")
	if strings.TrimSpace(s[strings.LastIndex(s, ";")+1:]) != "" {
		n++
	}
	return n
}

// appliedSum is the checksum of the first n statements of mg, as they run:
// a migration that stopped midway may be fixed after its last applied
// statement, but not before.
func appliedSum(mg *migration, n int) string {
	h := sha256.New()
	for _, st := range mg.stmts[:n] {
		h.Write([]byte(st.Text))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ledgerRow is what the ledger records of a migration.
type ledgerRow struct {
	checksum   string
	statements int
	done       int
	applied    string // appliedSum of the done statements
}

// gocqlxRow is what gocqlx's ledger records of a migration.
type gocqlxRow struct {
	checksum string // hex MD5 of the file
	done     int    // statements applied, as gocqlxCount counts them
}

// step is what a run does with one migration.
type step struct {
	mg       *migration
	from     int  // the first statement to run (0-based); len(stmts): none
	resumed  bool // the migration stopped before statement from, which may have run
	record   bool // the ledger has no row for it yet
	imported bool // gocqlx's migrate applied statements before from
}

// migrationError is a disagreement between the folder and the ledger: the
// folder is not the one the keyspace was migrated with, or a file changed.
type migrationError struct{ msg string }

func (e *migrationError) Error() string { return e.msg }

func disagree(format string, args ...any) error {
	return &migrationError{fmt.Sprintf(format, args...)}
}

// plan compares the folder with the ledgers and lists the steps to take.
func plan(dir string, files []*migration, ours map[string]ledgerRow, theirs map[string]gocqlxRow) ([]step, error) {
	inFolder := map[string]bool{}
	for _, mg := range files {
		inFolder[mg.name] = true
	}
	var missing []string
	for name := range ours {
		if !inFolder[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, disagree("the keyspace's ledger (%s) records %s, which %s lacks: is this the folder the keyspace was migrated from, or an older copy of it?", ledgerTable, strings.Join(missing, ", "), dir)
	}
	var steps []step
	pending := "" // the first migration of the folder no ledger knows
	for _, mg := range files {
		path := filepath.Join(dir, mg.name)
		r, ok := ours[mg.name]
		g, byGocqlx := theirs[mg.name]
		if (ok || byGocqlx) && pending != "" {
			return nil, disagree("%s has not been applied, but %s after it has: migrations run in order, so give %s a number after the last one applied", filepath.Join(dir, pending), path, pending)
		}
		switch {
		case ok && r.done >= r.statements && r.checksum == mg.sum:
			continue // applied
		case ok && r.done >= r.statements:
			return nil, disagree("%s has changed since it was applied (the ledger records %s, the file is %s): a migration that ran is history; write the change as a new migration (cqlgen diff -migrations writes one)", path, r.checksum, mg.sum)
		case ok:
			// Stopped midway: what ran must be what the file still says.
			if r.done > len(mg.stmts) || r.applied != appliedSum(mg, r.done) {
				return nil, disagree("%s stopped after statement %d, and the statements before have changed since they ran: restore them (the file's checksum then was %s), and fix only what comes after", path, r.done, r.checksum)
			}
			steps = append(steps, step{mg: mg, from: r.done, resumed: true})
		case byGocqlx:
			if g.checksum != mg.md5 {
				return nil, disagree("%s has changed since gocqlx's migrate applied it (its ledger %s records md5 %s, the file is %s): restore it, and write the change as a new migration", path, gocqlxTable, g.checksum, mg.md5)
			}
			if g.done >= mg.gocqlx {
				steps = append(steps, step{mg: mg, from: len(mg.stmts), record: true, imported: true})
				continue
			}
			if mg.gocqlx != len(mg.stmts) {
				return nil, disagree("%s stopped midway under gocqlx's migrate (statement %d of %d, as it counts them, which are not cqlgen's): finish it with gocqlx's migrate, then run cqlgen migrate", path, g.done, mg.gocqlx)
			}
			steps = append(steps, step{mg: mg, from: g.done, resumed: true, record: true, imported: true})
		default:
			pending = mg.name
			steps = append(steps, step{mg: mg, record: true})
		}
	}
	return steps, nil
}

// migrator runs the steps of a folder on a keyspace.
type migrator struct {
	e        *env
	s        *gocql.Session // of the keyspace
	r        *retrier
	keyspace string
	dir      string
	lease    *lease
}

// readLedgers reads cqlgen's ledger and, if the keyspace has one,
// gocqlx's. With create false, a missing ledger of cqlgen's is empty.
func (m *migrator) readLedgers() (map[string]ledgerRow, map[string]gocqlxRow, error) {
	ours, err := readLedger(m, ledgerTable, "checksum, statements, done, applied", func(r *ledgerRow) []any {
		return []any{&r.checksum, &r.statements, &r.done, &r.applied}
	})
	if err != nil {
		return nil, nil, err
	}
	theirs, err := readLedger(m, gocqlxTable, "checksum, done", func(r *gocqlxRow) []any {
		return []any{&r.checksum, &r.done}
	})
	if err != nil {
		return nil, nil, err
	}
	return ours, theirs, nil
}

// readLedger reads the rows of a ledger table, by name, if the keyspace
// has it (none if not): the columns after name, scanned into a row's
// fields, where dest points.
func readLedger[R any](m *migrator, table, columns string, dest func(*R) []any) (map[string]R, error) {
	rows := map[string]R{}
	ok, err := tableExists(m.s, m.r, m.keyspace, table)
	if err != nil || !ok {
		return rows, err
	}
	err = m.r.do(context.Background(), mayRepeat, "reading "+table, func(ctx context.Context) error {
		clear(rows)
		var name string
		var r R
		scan := append([]any{&name}, dest(&r)...)
		it := m.s.Query(`SELECT name, ` + columns + ` FROM ` + table).WithContext(ctx).Iter()
		for it.Scan(scan...) {
			rows[name] = r
		}
		return justCreated(it.Close())
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	return rows, nil
}

func (m *migrator) steps(files []*migration) ([]step, int) {
	ours, theirs, err := m.readLedgers()
	if err != nil {
		fmt.Fprintf(m.e.stderr, "cqlgen migrate: keyspace %s: %v\n", m.keyspace, explainDenied(err))
		return nil, ExitFailure
	}
	steps, err := plan(m.dir, files, ours, theirs)
	if err != nil {
		fmt.Fprintf(m.e.stderr, "cqlgen migrate: keyspace %s: %v\n", m.keyspace, err)
		return nil, ExitStale
	}
	return steps, ExitOK
}

func (m *migrator) dryRun(files []*migration) int {
	steps, code := m.steps(files)
	if code != ExitOK {
		return code
	}
	if len(steps) == 0 {
		m.nothingToDo(files)
	}
	for _, st := range steps {
		fmt.Fprintf(m.e.stdout, "%s: %s\n", st.mg.name, st.describe())
		for _, s := range st.mg.stmts[st.from:] {
			fmt.Fprintf(m.e.stdout, "    %s;\n", strings.ReplaceAll(s.Text, "\n", "\n    "))
		}
	}
	return ExitOK
}

func (st step) describe() string {
	n := len(st.mg.stmts)
	switch {
	case st.imported && st.from == n:
		return fmt.Sprintf("applied by gocqlx's migrate (%s); to be recorded in %s", gocqlxTable, ledgerTable)
	case st.resumed:
		return fmt.Sprintf("stopped after statement %d of %d; to resume at statement %d", st.from, n, st.from+1)
	}
	return fmt.Sprintf("%d statement(s) to apply", n)
}

func (m *migrator) run(files []*migration) int {
	steps, code := m.steps(files)
	if code != ExitOK {
		return code
	}
	if len(steps) == 0 {
		m.nothingToDo(files)
		return ExitOK
	}
	applied := 0
	for _, st := range steps {
		if err := m.apply(st); err != nil {
			fmt.Fprintf(m.e.stderr, "cqlgen migrate: keyspace %s: %v\n", m.keyspace, explainDenied(err))
			return ExitFailure
		}
		if st.from < len(st.mg.stmts) {
			applied++
		}
	}
	fmt.Fprintf(m.e.stdout, "keyspace %s: %d migration(s) applied; all %d of %s are now applied\n", m.keyspace, applied, len(files), m.dir)
	return ExitOK
}

func (m *migrator) nothingToDo(files []*migration) {
	fmt.Fprintf(m.e.stdout, "keyspace %s: all %d migration(s) of %s are applied; nothing to do\n", m.keyspace, len(files), m.dir)
}

// write runs a write of the ledger's: absolute values, retried (see
// runMigrate).
func (m *migrator) write(stmt string, values ...any) error {
	return m.r.execAs(m.s, mayRepeat, false, stmt, values...)
}

// apply takes one step: records the migration, runs its statements from
// st.from on, and moves the ledger after each one.
func (m *migrator) apply(st step) error {
	mg, n := st.mg, len(st.mg.stmts)
	path := filepath.Join(m.dir, mg.name)
	if err := m.lease.held(); err != nil {
		return err
	}
	now := time.Now()
	if st.record {
		imported := ""
		if st.imported {
			imported = gocqlxTable
		}
		if err := m.write(`INSERT INTO `+ledgerTable+` (name, checksum, statements, done, applied, started, applied_by, imported) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			mg.name, mg.sum, n, st.from, appliedSum(mg, st.from), now, m.lease.owner, imported); err != nil {
			return fmt.Errorf("recording %s in %s: %w", mg.name, ledgerTable, err)
		}
	} else if err := m.write(`UPDATE `+ledgerTable+` SET checksum = ?, statements = ?, applied_by = ? WHERE name = ?`, mg.sum, n, m.lease.owner, mg.name); err != nil {
		// Resumed: the file may have been fixed after the statement it
		// stopped at (plan checked the ones before), and the ledger takes
		// it as it now is.
		return fmt.Errorf("recording %s in %s: %w", mg.name, ledgerTable, err)
	}
	switch {
	case st.imported && st.from == n:
		fmt.Fprintf(m.e.stdout, "%s: applied by gocqlx's migrate; recorded\n", path)
	case st.resumed:
		fmt.Fprintf(m.e.stdout, "%s: resuming at statement %d of %d\n", path, st.from+1, n)
	}
	// Cassandra 6: a statement that turns transactional_mode on over a
	// table that holds rows not yet migrated to Accord is refused before
	// any statement of the file runs.
	for i := st.from; i < n; i++ {
		table, ok := turnsTransactional(mg.stmts[i].Text)
		if !ok {
			continue
		}
		err := m.r.do(context.Background(), mayRepeat, "reading table "+table, func(context.Context) error {
			return schemadiff.CheckOnboarding(m.s, m.keyspace, table)
		})
		if err != nil {
			return fmt.Errorf("%s:%d: statement %d of %d not run: %w", path, mg.stmts[i].Line, i+1, n, err)
		}
	}
	for i := st.from; i < n; i++ {
		stmt := mg.stmts[i]
		if err := m.lease.held(); err != nil {
			return fmt.Errorf("%s: before statement %d: %w", path, i+1, err)
		}
		if err := m.r.exec(m.s, stmt.Text); err != nil {
			if !(i == st.from && st.resumed && alreadyDone(err)) {
				return fmt.Errorf("%s:%d: statement %d of %d failed: %w\n\t%s\nStatements 1 to %d are applied and recorded; fix the cause and run again: it resumes at statement %d (fixing the file after statement %d is allowed, before it is not)",
					path, stmt.Line, i+1, n, err, strings.ReplaceAll(stmt.Text, "\n", "\n\t"), i, i+1, i)
			}
			// The run that stopped had applied it, and stopped before
			// recording it.
			fmt.Fprintf(m.e.stdout, "%s: statement %d had run before the last run stopped (%v); taken as done\n", path, i+1, err)
		}
		if err := m.write(`UPDATE `+ledgerTable+` SET done = ?, applied = ? WHERE name = ?`, i+1, appliedSum(mg, i+1), mg.name); err != nil {
			return fmt.Errorf("%s: statement %d ran, but recording it failed: %w (a new run resumes at it, and takes \"already exists\" as done)", path, i+1, err)
		}
	}
	if err := m.write(`UPDATE `+ledgerTable+` SET finished = ? WHERE name = ?`, time.Now(), mg.name); err != nil {
		return fmt.Errorf("recording %s as finished: %w", mg.name, err)
	}
	if st.from < n {
		fmt.Fprintf(m.e.stdout, "%s: applied (%d statement(s))\n", path, n-st.from)
	}
	return nil
}

// turnsTransactional reports whether stmt is an ALTER TABLE that sets
// transactional_mode to a mode other than 'off', and of which table (its
// name without a keyspace).
func turnsTransactional(stmt string) (string, bool) {
	words := strings.Fields(strings.NewReplacer("=", " = ", ";", " ").Replace(stmt))
	if len(words) < 4 || !strings.EqualFold(words[0], "alter") || !strings.EqualFold(words[1], "table") {
		return "", false
	}
	for i := 3; i+2 < len(words); i++ {
		if strings.EqualFold(words[i], "transactional_mode") && words[i+1] == "=" {
			if strings.EqualFold(strings.Trim(words[i+2], "'"), "off") {
				return "", false
			}
			name := words[2]
			if j := strings.LastIndexByte(name, '.'); j >= 0 && !strings.HasSuffix(name, `"`) || j >= 0 && name[j+1] == '"' {
				name = name[j+1:]
			}
			return schemadiff.Ident(name), true
		}
	}
	return "", false
}

// justCreated marks as passing the error of a read of a table that
// system_schema lists, and the node does not know yet: another run has
// just created it (Cassandra writes system_schema before the node's
// schema in memory).
func justCreated(err error) error {
	if err != nil && (strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), "unconfigured table")) {
		return passing{err}
	}
	return err
}

// alreadyDone reports an error that a statement which had already run
// gets when it runs again: the table, column, index or type exists.
func alreadyDone(err error) bool {
	var ae *gocql.RequestErrAlreadyExists
	if errors.As(err, &ae) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "already exists") || strings.Contains(msg, "conflicts with an existing column")
}

// tableExists reports whether keyspace has table; with table "", whether
// the keyspace exists.
func tableExists(s *gocql.Session, r *retrier, keyspace, table string) (bool, error) {
	err := r.do(context.Background(), mayRepeat, "reading keyspace "+keyspace+"'s schema", func(ctx context.Context) error {
		if table == "" {
			return s.Query(`SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?`, keyspace).WithContext(ctx).Scan(new(string))
		}
		return s.Query(`SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, keyspace, table).WithContext(ctx).Scan(new(string))
	})
	if err == gocql.ErrNotFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading keyspace %s's schema: %w", keyspace, err)
	}
	return true, nil
}

// lease is the migration lock a run holds: a row with a TTL, written and
// renewed with lightweight transactions.
type lease struct {
	s        *gocql.Session
	r        *retrier
	keyspace string
	owner    string
	ttl      time.Duration
	since    time.Time

	mu      sync.Mutex
	renewed time.Time // the last renewal the cluster accepted
	lost    error     // set when another owner holds the row
	stop    chan struct{}
	done    chan struct{}
}

// takeLease takes the migration lock of keyspace, waiting up to wait for
// the run that holds it.
func takeLease(e *env, s *gocql.Session, r *retrier, keyspace string, ttl, wait time.Duration) (*lease, error) {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	l := &lease{s: s, r: r, keyspace: keyspace, ttl: ttl, owner: fmt.Sprintf("%s pid %d (%s)", host, os.Getpid(), hex.EncodeToString(b[:])),
		stop: make(chan struct{}), done: make(chan struct{})}
	deadline := time.Now().Add(wait)
	poll := min(2*time.Second, ttl/4)
	said := ""
	for {
		l.since = time.Now().UTC().Truncate(time.Millisecond)
		holder := map[string]any{}
		var ok bool
		err := r.do(context.Background(), mayRepeat, "taking the migration lock", func(ctx context.Context) error {
			clear(holder)
			var err error
			ok, err = s.Query(`INSERT INTO `+lockTable+` (name, owner, since) VALUES (?, ?, ?) IF NOT EXISTS USING TTL ?`,
				lockRow, l.owner, l.since, int(ttl/time.Second)).WithContext(ctx).MapScanCAS(holder)
			// The lock table another run has just created may not be
			// known to the node yet.
			return justCreated(err)
		})
		if err != nil {
			return nil, fmt.Errorf("keyspace %s: taking the migration lock: %w", keyspace, err)
		}
		// An attempt that got no reply may have taken it: the retry then
		// finds the row this run wrote.
		if owner, _ := holder["owner"].(string); !ok && owner == l.owner {
			ok = true
		}
		if ok {
			l.renewed = time.Now()
			go l.renew()
			return l, nil
		}
		owner, _ := holder["owner"].(string)
		since, _ := holder["since"].(time.Time)
		who := fmt.Sprintf("%s since %s", owner, since.UTC().Format(time.RFC3339))
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("keyspace %s: the migration lock is held by %s: another run is migrating the keyspace. Run again once it is done (-wait waits for it); the lock of a run that crashed expires within its lease (-lease) of its last renewal", keyspace, who)
		}
		if said != owner {
			fmt.Fprintf(e.stderr, "cqlgen migrate: keyspace %s: waiting for the migration lock, held by %s (up to -wait %s)\n", keyspace, who, wait)
			said = owner
		}
		time.Sleep(poll)
	}
}

// renew extends the lease every fifth of its TTL until release.
func (l *lease) renew() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 5)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		holder := map[string]any{}
		var ok bool
		err := l.r.do(context.Background(), mayRepeat, "renewing the migration lock", func(ctx context.Context) error {
			clear(holder)
			var err error
			ok, err = l.s.Query(`UPDATE `+lockTable+` USING TTL ? SET owner = ?, since = ? WHERE name = ? IF owner = ?`,
				int(l.ttl/time.Second), l.owner, l.since, lockRow, l.owner).WithContext(ctx).MapScanCAS(holder)
			return err
		})
		l.mu.Lock()
		switch {
		case err != nil:
			// held() judges by the time of the last renewal.
		case ok:
			l.renewed = time.Now()
		default:
			owner, _ := holder["owner"].(string)
			if owner == "" {
				owner = "nobody (it expired)"
			}
			l.lost = fmt.Errorf("lost the migration lock of keyspace %s, now held by %s: stopped; run again", l.keyspace, owner)
		}
		l.mu.Unlock()
	}
}

// held returns an error once the lease is lost, or is half way to expiring
// unrenewed (a renewal or two failed): a run stops well before another can
// take the lock.
func (l *lease) held() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return l.lost
	}
	if time.Since(l.renewed) > l.ttl/2 {
		return fmt.Errorf("the migration lock of keyspace %s could not be renewed for %s and may have expired: stopped; run again", l.keyspace, time.Since(l.renewed).Round(time.Second))
	}
	return nil
}

// release stops renewing and deletes the row, if it is still this run's.
func (l *lease) release() {
	close(l.stop)
	<-l.done
	_ = l.r.do(context.Background(), mayRepeat, "releasing the migration lock", func(ctx context.Context) error {
		_, err := l.s.Query(`DELETE FROM `+lockTable+` WHERE name = ? IF owner = ?`, lockRow, l.owner).WithContext(ctx).MapScanCAS(map[string]any{})
		return err
	})
}
