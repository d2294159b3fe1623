package cli

import (
	"fmt"

	"github.com/cqlgen/cqlgen/cmd/internal/textdiff"
	"github.com/cqlgen/cqlgen/internal/diag"
)

func runCheck(e *env, args []string) int {
	fs := newFlags(e, "check", "[packages]")
	quiet := fs.Bool("q", false, "name the stale files but print no diff")
	cs, code, ok := changes(e, fs, args)
	if !ok {
		return code
	}
	if len(cs) == 0 {
		return ExitOK
	}
	var stale diag.List
	people := e.forPeople()
	for _, c := range cs {
		path := e.rel(c.Path)
		what := "is stale"
		switch {
		case c.Old == nil:
			what = "is missing"
		case c.New == nil:
			what = "is no longer generated and should be removed"
		}
		fmt.Fprintf(e.stderr, "cqlgen check: %s %s\n", path, what)
		stale.Add(staleDiag(c, what))
		if !*quiet {
			fmt.Fprint(people.stdout, textdiff.Unified(path+" (on disk)", path+" (generated)", string(c.Old), string(c.New)))
		}
	}
	if e.machine() {
		e.report(stale, false)
	}
	fmt.Fprintf(e.stderr, "cqlgen check: %d file(s) out of date; run cqlgen generate (or go generate) and commit the result\n", len(cs))
	return ExitStale
}
