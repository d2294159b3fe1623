package cli

import (
	"fmt"

	"github.com/cqlgen/cqlgen/internal/pipeline"
)

func runGenerate(e *env, args []string) int {
	fs := newFlags(e, "generate", "[packages]")
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
