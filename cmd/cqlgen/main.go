// Command cqlgen turns query-first Cassandra data models, declared as
// struct tags on Go entity structs, into one table per access pattern and
// a typed repository.
//
// Add it to a module as a tool and to a package as a generate step:
//
//	go get -tool github.com/cqlgen/cqlgen/cmd/cqlgen
//	//go:generate go tool cqlgen generate .
//
// Run cqlgen help for the subcommands and exit codes.
package main

import (
	"os"

	"github.com/cqlgen/cqlgen/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
