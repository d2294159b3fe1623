// Package cqlmaintain makes a team's maintenance command of the generated
// repositories of entities stored in several tables: Run parses a command
// line and drives their Verify, Repair and Backfill (docs/runbook.md in
// the cqlgen repository).
package cqlmaintain

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cqlgen/cqlgen/internal/suggest"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// ErrUnread: a run read no entity from a source of truth that holds
// some. It skipped rows, and must not pass for one over an empty table.
var ErrUnread = errors.New("cqlmaintain: rows of the source of truth were not read")

// Run runs Verify, Repair or Backfill of generated repositories
// from a command line, so that a team's maintenance command is a few lines
// of its own code:
//
//	func main() {
//		s := ... // a Session on the keyspace
//		os.Exit(cqlmaintain.Run(ctx, os.Args[1:], os.Stdout, os.Stderr,
//			music.NewTrackRepo(s), music.NewChartEntryRepo(s)))
//	}
//
// The command line:
//
//	verify   [-entity E] [-table T]... [-job NAME] [-json] [-show-keys] [flags]   report drift; exit 1 if any
//	repair   [-entity E] [-table T]... [-job NAME] [-json] [-show-keys] [flags]   repair it, then verify
//	backfill [-entity E] -table T -job NAME [-rate N] [flags]                     fill a table, resumably, then verify it
//	adopt    [-entity E] [-job NAME] [-rate N] [flags]                            give rows written outside cqlgen a version, resumably
//	status   [-entity E] [-table T] -job NAME [-ranges N]                         how far every run of the job has come, across workers
//
// with -ranges, -concurrency, -buckets, -hold, -rate, -job, -shard and
// -show-keys as in Options. -shard i/n makes the run worker i of n of
// its -job (Options.Shard); without it, a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX, with CQLGEN_SHARDS the Job's completions, says
// the same. -rate is the whole job's, split among its n workers.
// -consistency LEVEL runs every read and write at LEVEL (ALL, QUORUM,
// LOCAL_QUORUM, ONE...; default the session's) through cqlgen.WithLevels. A report's sample keys have their values redacted
// unless -show-keys. An -entity or a -table that names nothing there is
// is a bad command line, which names the entities or tables there are.
// Every report says how many rows of the source of truth it read, how
// many of them were written outside cqlgen, and how many it skipped and
// why (graves, statics with no row). Progress goes to stderr: a bar on a
// terminal, a line every second otherwise. Exit codes:
//
//	0  in step, or done and in step after
//	1  verify found drift
//	2  bad command line
//	4  failure (the error is printed; a backfill or adopt resumes with its -job)
//	6  a repair, backfill or adopt finished, and the verify after it still
//	   finds drift (e.g. rows shadowed by later deletes: run repair)
//	7  the source of truth holds entities the run did not read (ErrUnread)
//
// (3 and 5 are left to cqlgen's own meanings, as cqlgen maintain passes
// these codes on.)
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, ms ...Maintainer) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "maintenance: "+format+"\n", a...)
		fmt.Fprintln(stderr, "usage: verify|repair|backfill|adopt|status [-entity E] [-table T]... [-job NAME] [-shard I/N] [-rate N] [-consistency LEVEL] [-ranges N] [-concurrency N] [-writes N] [-buckets N] [-hold N] [-json] [-show-keys]")
		return 2
	}
	if len(args) == 0 {
		return usage("no command")
	}
	cmd := args[0]
	if !slices.Contains(commands, cmd) {
		mean := ""
		if c := suggest.Closest(cmd, commands); c != "" {
			mean = fmt.Sprintf("; did you mean %s?", c)
		}
		return usage("unknown command %q%s", cmd, mean)
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	entity := fs.String("entity", "", "the entity (default: every one)")
	var tables tableFlags
	fs.Var(&tables, "table", "a table to work on (repeatable; default: every one)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.BoolVar(&o.ShowKeys, "show-keys", false, "show the sample keys' values (default: each redacted to a short hash)")
	fs.IntVar(&o.Ranges, "ranges", 0, "token ranges per table (default 64)")
	fs.IntVar(&o.Concurrency, "concurrency", 0, "ranges at once (default 4)")
	fs.IntVar(&o.Writes, "writes", 0, "rows a backfill or adopt writes at once (default: adapts to the cluster's latency, from 32, at most 256)")
	fs.IntVar(&o.Buckets, "buckets", 0, "digest buckets per table (default 4096)")
	fs.IntVar(&o.Hold, "hold", 0, "rows a verify or repair without -job holds at once to compare (default 4096)")
	fs.IntVar(&o.Rate, "rate", 0, "rows written a second at most, by the whole job (default: no bound)")
	fs.StringVar(&o.Job, "job", "", "the job's checkpoint name: run again, it resumes")
	shard := fs.String("shard", "", "this worker's share `i/n` of the job's ranges (default: JOB_COMPLETION_INDEX of CQLGEN_SHARDS, or all)")
	level := fs.String("consistency", "", "the consistency `level` of every read and write (default: the session's)")
	if err := fs.Parse(args[1:]); err != nil {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			if c := suggest.Closest(name, names); c != "" {
				fmt.Fprintf(stderr, "maintenance: did you mean -%s?\n", c)
			}
		}
		return 2
	}
	if fs.NArg() > 0 {
		return usage("unexpected %q", fs.Arg(0))
	}
	var err error
	if o.Shard, o.Shards, err = shardOf(*shard, os.Getenv); err != nil {
		return usage("%v", err)
	}
	if o.Shards >= 1 && o.Job == "" {
		return usage("-shard %d/%d needs a -job, under which each worker records the ranges it finished", o.Shard, o.Shards)
	}
	if cmd == "status" {
		o.Shard, o.Shards = 0, 0 // status reads every worker's ranges
	}
	if *level != "" {
		c, err := ParseConsistency(*level)
		if err != nil {
			return usage("-consistency: %v", err)
		}
		ctx = cqlgen.WithLevels(ctx, cqlgen.Levels{Read: c, Write: c})
	}
	var chosen []Maintainer
	for _, m := range ms {
		if *entity == "" || m.Entity() == *entity {
			chosen = append(chosen, m)
		}
	}
	if len(chosen) == 0 {
		var names []string
		for _, m := range ms {
			names = append(names, m.Entity())
		}
		mean := ""
		if c := suggest.Closest(*entity, names); c != "" {
			mean = fmt.Sprintf("; did you mean %s?", c)
		}
		return usage("no entity %q%s (there are %s)", *entity, mean, strings.Join(names, ", "))
	}
	// A -table that names no table of the chosen entities is a mistake,
	// not a request for nothing: say which tables there are.
	for _, t := range tables {
		if !slices.ContainsFunc(chosen, func(m Maintainer) bool { return slices.Contains(m.Tables(), t) }) {
			return usage("%s", noTable(t, *entity, chosen))
		}
	}
	if len(tables) > 0 {
		// Only the entities that write a table asked for, so that a
		// backfill's -table names its entity.
		chosen = slices.DeleteFunc(chosen, func(m Maintainer) bool {
			return !slices.ContainsFunc(tables, func(t string) bool { return slices.Contains(m.Tables(), t) })
		})
	}
	if cmd == "backfill" && (len(chosen) != 1 || len(tables) != 1 || o.Job == "") {
		return usage("backfill needs one -table (and -entity if two entities write it) and a -job name")
	}
	if cmd == "status" && (o.Job == "" || len(tables) > 1 || (len(tables) == 1 && len(chosen) != 1)) {
		return usage("status needs a -job name, and at most one -table (a backfill's; none for an adopt)")
	}
	o.Adopt = cmd == "adopt"
	o.Status = cmd == "status"
	o.Progress = progressPrinter(stderr, cmd)
	code := 0
	for _, m := range chosen {
		o.Tables = nil
		for _, t := range tables {
			if slices.Contains(m.Tables(), t) {
				o.Tables = append(o.Tables, t)
			}
		}
		var rep *Report
		var err error
		switch {
		case cmd == "verify":
			rep, err = m.Verify(ctx, &o)
		case cmd == "repair", o.Adopt, o.Status:
			rep, err = m.Repair(ctx, &o)
		default:
			rep, err = m.Backfill(ctx, o.Tables[0], &o)
		}
		if rep != nil {
			printReport(stdout, rep, cmd, *asJSON)
		}
		switch {
		case errors.Is(err, ErrUnread):
			fmt.Fprintf(stderr, "%s %s: %v\n", cmd, m.Entity(), err)
			return 7
		case err != nil:
			fmt.Fprintf(stderr, "%s %s: %v\n", cmd, m.Entity(), err)
			if o.Job != "" && cmd != "status" {
				fmt.Fprintf(stderr, "the ranges it finished are recorded: run the same command again to resume job %q\n", o.Job)
			}
			return 4
		case cmd == "verify" && rep.Drift()+rep.ResumedDrift > 0:
			code = 1
		case rep.Left() > 0:
			fmt.Fprintf(stderr, "%s %s: the verify after it finds %d rows out of step; run repair%s to write them at a new version\n", cmd, m.Entity(), rep.Left(), tableArgs(o.Tables))
			code = 6
		}
	}
	return code
}

// shardOf reads a worker's share of a job: flag, as i/n; else a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX, with CQLGEN_SHARDS its
// completions (which Kubernetes does not pass on by itself: the manifest
// sets it); else none (0, 0).
func shardOf(flag string, getenv func(string) string) (shard, shards int, err error) {
	from := "-shard"
	if flag == "" {
		idx, n := getenv("JOB_COMPLETION_INDEX"), getenv("CQLGEN_SHARDS")
		switch {
		case idx == "" && n == "":
			return 0, 0, nil
		case n == "":
			return 0, 0, errors.New("JOB_COMPLETION_INDEX is set but CQLGEN_SHARDS is not: set it to the Job's completions (or give -shard i/n)")
		case idx == "":
			return 0, 0, errors.New("CQLGEN_SHARDS is set but JOB_COMPLETION_INDEX is not: run as an Indexed Job (or give -shard i/n)")
		}
		flag, from = idx+"/"+n, "JOB_COMPLETION_INDEX/CQLGEN_SHARDS"
	}
	i, n, ok := strings.Cut(flag, "/")
	shard, err1 := strconv.Atoi(i)
	shards, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || shards < 1 || shard < 0 || shard >= shards {
		return 0, 0, fmt.Errorf("%s %q: want i/n, 0 <= i < n (worker i of n)", from, flag)
	}
	return shard, shards, nil
}

// ParseConsistency reads a consistency level by its CQL name (ALL,
// QUORUM, LOCAL_QUORUM, ONE, LOCAL_ONE, TWO, THREE, EACH_QUORUM), in any
// case. ANY and the serial levels are refused: a read cannot run at ANY,
// and the serial levels are the Paxos phase's, not a run's.
func ParseConsistency(name string) (cqldriver.Consistency, error) {
	var names []string
	for c := cqldriver.One; c <= cqldriver.LocalOne; c++ {
		if c.IsSerial() {
			continue
		}
		if strings.EqualFold(name, c.String()) {
			return c, nil
		}
		names = append(names, c.String())
	}
	return 0, fmt.Errorf("%q is not a level a run can take (%s)", name, strings.Join(names, ", "))
}

// commands are Run's commands.
var commands = []string{"verify", "repair", "backfill", "adopt", "status"}

func tableArgs(tables []string) string {
	var b strings.Builder
	for _, t := range tables {
		b.WriteString(" -table " + t)
	}
	return b.String()
}

// noTable says that no chosen entity writes table, and which tables
// they write: those of the entity named with -entity, or every entity's.
func noTable(table, entity string, chosen []Maintainer) string {
	var all []string
	for _, m := range chosen {
		all = append(all, m.Tables()...)
	}
	mean := ""
	if c := suggest.Closest(table, all); c != "" {
		mean = fmt.Sprintf("; did you mean %s?", c)
	}
	if entity != "" {
		return fmt.Sprintf("%s writes no table %q%s (it writes %s; its source of truth is not one of them)",
			entity, table, mean, strings.Join(chosen[0].Tables(), ", "))
	}
	var each []string
	for _, m := range chosen {
		each = append(each, m.Entity()+": "+strings.Join(m.Tables(), ", "))
	}
	return fmt.Sprintf("%q is not a table -table can name%s: -table names a table checked against its entity's source of truth, and a source of truth is checked by nothing (for every table of an entity, give -entity alone). The tables, by entity: %s", table, mean, strings.Join(each, "; "))
}

type tableFlags []string

func (t *tableFlags) String() string     { return strings.Join(*t, ",") }
func (t *tableFlags) Set(s string) error { *t = append(*t, s); return nil }

// progressPrinter shows progress on w: a bar redrawn in place on a
// terminal, a plain line otherwise.
func progressPrinter(w io.Writer, cmd string) func(Progress) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return func(p Progress) {
		eta := ", ETA ?"
		switch d := p.ETA(); {
		case p.Phase == "done":
			eta = ""
		case d > 0:
			eta = ", ETA " + d.Round(time.Second).String()
		}
		label := cmd
		if p.Phase != cmd {
			// Not "backfill backfill:".
			label += " " + p.Phase
		}
		line := fmt.Sprintf("%s: %d/%d ranges, %d rows, %.0f rows/s%s", label, p.Done, p.Ranges, p.Rows, p.Rate(), eta)
		if !tty {
			fmt.Fprintln(w, line)
			return
		}
		const width = 30
		filled := 0
		if p.Ranges > 0 {
			filled = width * min(p.Done, p.Ranges) / p.Ranges
		}
		fmt.Fprintf(w, "\r[%s%s] %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), line)
		if p.Phase == "done" {
			fmt.Fprintln(w)
		}
	}
}

func printReport(w io.Writer, r *Report, cmd string, asJSON bool) {
	if asJSON {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Fprintln(w, string(b))
		return
	}
	switch cmd {
	case "status":
		if len(r.Jobs) == 0 {
			fmt.Fprintf(w, "status %s: no range recorded under the job (give status the -ranges the runs had)\n", r.Entity)
			return
		}
		for _, j := range r.Jobs {
			what := j.Kind
			if j.Table != "" {
				what += " " + j.Table
			}
			eta := ""
			if d := j.ETA(); d > 0 {
				eta = ", ETA " + d.Round(time.Second).String()
			}
			fmt.Fprintf(w, "status %s: %s: %d/%d token ranges done, %d rows, %.0f rows/s%s, drift %d; last range recorded %v ago\n",
				r.Entity, what, j.Done, j.Ranges, j.Rows, j.Rate(), eta, j.Drift, time.Since(j.Last).Round(time.Second))
		}
		return
	case "backfill", "adopt":
		// A backfill compares nothing: what it read, and what it wrote;
		// then the verify after it.
		fmt.Fprintf(w, "%s %s: read %s in %v", cmd, r.Entity, readWords(r), r.Elapsed.Round(time.Millisecond))
		if r.Resumed > 0 {
			fmt.Fprintf(w, "; skipped %d token ranges an earlier run of the job finished", r.Resumed)
		}
		fmt.Fprintln(w)
		if r.Shards >= 1 {
			fmt.Fprintf(w, "  shard %d/%d of the job: verify it (verify -job) once every shard is done\n", r.Shard, r.Shards)
		}
		if cmd == "adopt" {
			fmt.Fprintf(w, "  gave %d rows written outside cqlgen a version, and wrote them in every table\n", r.Adopted)
		}
		for _, t := range r.Tables {
			fmt.Fprintf(w, "  %-28s wrote %d rows, one for each row read that belongs in it\n", t.Table, t.Inserted)
		}
		if r.After != nil {
			printReport(w, r.After, "verify", false)
		}
		return
	}
	fmt.Fprintf(w, "%s %s: read %s, %v", cmd, r.Entity, readWords(r), r.Elapsed.Round(time.Millisecond))
	if r.Shards >= 1 {
		fmt.Fprintf(w, "; shard %d/%d", r.Shard, r.Shards)
	}
	if r.Resumed > 0 {
		fmt.Fprintf(w, "; skipped %d token ranges an earlier run of the job finished, which found %d rows out of step", r.Resumed, r.ResumedDrift)
	}
	fmt.Fprintln(w)
	for _, t := range r.Tables {
		fmt.Fprintf(w, "  %-28s should hold %d rows, holds %d; %d missing, %d stale, %d orphans", t.Table, t.Expected, t.Present, t.Missing, t.Stale, t.Orphans)
		if cmd == "repair" {
			fmt.Fprintf(w, "; repair wrote %d missing or stale, deleted %d orphans", t.Inserted, t.Deleted)
		}
		fmt.Fprintln(w)
		for _, s := range []struct {
			what string
			keys []string
		}{{"missing", t.MissingKeys}, {"stale", t.StaleKeys}, {"orphan", t.OrphanKeys}} {
			for _, k := range s.keys {
				fmt.Fprintf(w, "    %s: %s\n", s.what, k)
			}
		}
	}
	if r.After != nil {
		printReport(w, r.After, "verify", false)
	}
}

// readWords says what a run read of the source of truth: the entities,
// those written outside cqlgen among them, and the rows skipped, by why.
func readWords(r *Report) string {
	s := fmt.Sprintf("%d rows of %s (its source of truth)", r.Rows, r.Source)
	if r.Unversioned > 0 {
		s += fmt.Sprintf(", %d of them written outside cqlgen (no version)", r.Unversioned)
	}
	var skipped []string
	if r.Graves > 0 {
		skipped = append(skipped, fmt.Sprintf("%d deleted entities' graves", r.Graves))
	}
	if r.StaticsOnly > 0 {
		skipped = append(skipped, fmt.Sprintf("%d partitions' statics with no row", r.StaticsOnly))
	}
	if len(skipped) > 0 {
		s += "; skipped " + strings.Join(skipped, " and ")
	}
	return s
}

// Maintainer is what a generated repository of an entity stored in
// several tables offers for its upkeep.
type Maintainer interface {
	// Entity names the entity; Tables lists the tables Repair and
	// Backfill write, its source of truth left out.
	Entity() string
	Tables() []string
	// Verify compares every table with what the source of truth implies.
	Verify(ctx context.Context, o *Options) (*Report, error)
	// Repair verifies, then writes what is missing or stale and deletes
	// the orphans, each at a timestamp that any later write wins over.
	Repair(ctx context.Context, o *Options) (*Report, error)
	// Backfill writes every row the source of truth implies into one
	// table, range by range, resumable with o.Job.
	Backfill(ctx context.Context, table string, o *Options) (*Report, error)
}
