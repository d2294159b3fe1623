package cli

import (
	"flag"
	"fmt"

	"github.com/cqlgen/cqlgen/cmd/internal/textdiff"
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

func runGenerate(e *env, fs *flag.FlagSet, args []string) int {
	verbose := fs.Bool("v", false, "list the files written")
	cs, code, ok := changes(e, fs, args)
	if !ok {
		return code
	}
	if err := pipeline.Apply(cs); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen: %v\n", err)
		return ExitFailure
	}
	if *verbose {
		for _, c := range cs {
			verb := "wrote"
			if c.New == nil {
				verb = "removed"
			}
			fmt.Fprintf(e.forPeople().stdout, "%s %s\n", verb, e.rel(c.Path))
		}
	}
	return ExitOK
}

func runCheck(e *env, fs *flag.FlagSet, args []string) int {
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
