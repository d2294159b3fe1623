package cli

import (
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

func runVersion(e *env, fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	module := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		module = info.Main.Version
	}
	fmt.Fprintf(e.stdout, "cqlgen %s (runtime %s)\n", module, cqlgen.Version)
	return ExitOK
}
