package cli

import (
	"fmt"

	"github.com/cqlgen/cqlgen/gen"
)

func runGenerate(e *env, args []string) int {
	fs := newFlags(e, "generate", "[packages]")
	verbose := fs.Bool("v", false, "list the files written")
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	res, code, ok := generate(e, fs.Args())
	if !ok {
		return code
	}
	changes, err := res.Changes()
	if err != nil {
		fmt.Fprintf(e.stderr, "cqlgen: %v\n", err)
		return ExitFailure
	}
	if err := gen.Apply(changes); err != nil {
		fmt.Fprintf(e.stderr, "cqlgen: %v\n", err)
		return ExitFailure
	}
	if *verbose {
		for _, c := range sortedPaths(changes) {
			verb := "wrote"
			if c.New == nil {
				verb = "removed"
			}
			fmt.Fprintf(e.stdout, "%s %s\n", verb, e.rel(c.Path))
		}
	}
	return ExitOK
}
