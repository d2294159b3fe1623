package cli

import (
	"flag"
	"fmt"
	"go/token"
	"io"
	"path/filepath"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// output is how a command reports: -format and -errors-only.
type output struct {
	format     diag.OutputFormat // "" is text
	errorsOnly bool
}

// outputFlags adds -format and -errors-only to fs, setting e.out.
func outputFlags(e *env, fs *flag.FlagSet) {
	e.out.format = diag.Text
	fs.Func("format", "write diagnostics as `text|json|github`: text (file:line:col: message, on stderr), json (one JSON object a line,\non stdout; the report for people goes to stderr) or github (GitHub Actions annotations, on stdout) (default text)", func(s string) error {
		f, err := diag.ParseFormat(s)
		e.out.format = f
		return err
	})
	fs.BoolVar(&e.out.errorsOnly, "errors-only", false, "write errors only, leaving warnings and notices out (exit codes do not change; under -strict, warnings are errors and stay)")
}

// machine reports whether diagnostics go to stdout for a program to read.
func (e *env) machine() bool { return e.out.format == diag.JSON || e.out.format == diag.GitHub }

// forPeople returns e itself, or, under -format json, a copy whose stdout
// is stderr, so that stdout carries JSON alone and the report written for
// people is still there to read.
func (e *env) forPeople() *env {
	if e.out.format != diag.JSON {
		return e
	}
	c := *e
	c.stdout = e.stderr
	return &c
}

// report writes diagnostics in e's format: text to stderr, the others to
// stdout. With strict, warnings are errors, so -errors-only keeps them.
func (e *env) report(l diag.List, strict bool) {
	if len(l) == 0 {
		return
	}
	w, dir := e.stderr, e.dir
	if e.machine() {
		w = e.stdout
	}
	if e.out.format == diag.GitHub {
		// The runner resolves an annotation's file against the
		// repository's root, which is the workspace.
		if ws := e.getenv("GITHUB_WORKSPACE"); ws != "" {
			dir = ws
		}
	}
	if strict && e.out.errorsOnly {
		var kept diag.List
		for _, d := range l {
			if d.Severity != diag.Notice {
				kept = append(kept, d)
			}
		}
		l = kept
	}
	if err := l.Write(w, e.out.format, dir, e.out.errorsOnly && !strict); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen: %v\n", err)
	}
}

// staleDiag is check's finding on a generated file, as a diagnostic on
// that file.
func staleDiag(c pipeline.Change, what string) diag.Diagnostic {
	return diag.Diagnostic{
		Pos:      positionOf(c.Path, nil, ""),
		Severity: diag.Error,
		Code:     diag.Stale,
		Msg:      fmt.Sprintf("%s %s: run cqlgen generate (or go generate) and commit the result", filepath.Base(c.Path), what),
	}
}

// changeDiag is one of diff's schema changes as a diagnostic on the
// package's schema.cql, at the table's CREATE TABLE when the generated
// script has it: a breaking change is an error, with the way through as
// help; a deprecated table to drop, a warning; the rest, notices.
// target ends the cqlgen maintain command lines the way through names
// (maintainTarget).
func changeDiag(p *pipeline.Package, c schemadiff.Change, target string) diag.Diagnostic {
	d := diag.Diagnostic{
		Pos:      positionOf(filepath.Join(p.Dir, pipeline.SchemaFile), p.Files[pipeline.SchemaFile], c.Table),
		Severity: diag.Notice,
		Msg:      c.String(),
	}
	switch c.Kind {
	case schemadiff.Breaking:
		d.Severity, d.Code = diag.Error, diag.BreakingChange
		d.Help = strings.TrimRight(planFor(c, target), "\n")
	case schemadiff.Contract:
		d.Severity, d.Code = diag.Warning, diag.ContractChange
		d.Help = "run by hand once every running copy is built without it (never part of a migration):\n" + c.CQL
	case schemadiff.Unmanaged:
		d.Code = diag.UnmanagedTable
	default:
		d.Code = diag.AdditiveChange
		if c.CQL != "" {
			d.Help = c.CQL
		}
	}
	return d
}

// positionOf is the line of script that creates table (none when script
// does not), in file.
func positionOf(file string, script []byte, table string) (pos token.Position) {
	pos.Filename = file
	if table == "" {
		return pos
	}
	for i, line := range strings.Split(string(script), "\n") {
		if strings.HasPrefix(line, "CREATE TABLE IF NOT EXISTS "+table+" (") {
			pos.Line, pos.Column = i+1, 1
			return pos
		}
	}
	return pos
}

// planFor is the way through a breaking change: the runbook's for a
// source of truth, which is a new entity, else expand/contract.
// target ends the cqlgen maintain command lines it names, in place of
// PKG (maintainTarget: the package, after -keyspace if needed).
func planFor(c schemadiff.Change, target string) string {
	if c.SourceOf != "" {
		return strings.ReplaceAll(strings.ReplaceAll(truthPlan, "ENTITY", c.SourceOf), " PKG", " "+target)
	}
	return strings.ReplaceAll(breakingPlan, " PKG", " "+target)
}

// plans prints, once each, the ways through the breaking changes.
func plans(w io.Writer, changes []schemadiff.Change, target string) {
	seen := map[string]bool{}
	for _, c := range changes {
		if c.Kind != schemadiff.Breaking {
			continue
		}
		if plan := planFor(c, target); !seen[plan] {
			seen[plan] = true
			fmt.Fprint(w, plan)
		}
	}
}

// truthPlan is how to change the key of a source of truth
// (docs/runbook.md, "Changing a table's key", its last paragraph).
const truthPlan = `  the way through for ENTITY's source of truth (docs/runbook.md, "changing a table's key"): it
  cannot be deprecated nor backfilled, since every other table of ENTITY is checked and rebuilt
  from it; a new key for it is a new entity, filled by a program of yours:
    1. leave ENTITY's patterns as they were, and declare a new entity (a new Go type) whose source
       of truth has the new key, under a new table name; generate, and apply its tables
    2. have the application write both entities, then fill the new one with a program of yours
       that reads every ENTITY and writes it; make it resumable, for it may stop midway
    3. verify: cqlgen maintain verify -entity NEW PKG, for the new entity's other tables
    4. switch reads to the new entity's methods, and deploy
    5. stop writing ENTITY, remove its declarations, and drop its tables by hand once nothing reads them
`
