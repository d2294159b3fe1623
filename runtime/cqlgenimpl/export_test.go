package cqlgenimpl

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
	// The runtime encodes keys with the codecs of the drivers linked into
	// the program; these tests link gocql v1's, as a program using the
	// gocqlv1 adapter does.
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// What this package's tests reach beyond the façade: no generated code
// calls these, so they are no part of it.

func CallOptions(o cqlgen.Options, opts []cqlgen.Option) cqlgen.Options {
	return desc.CallOptions(o, opts)
}

func DeleteThenInsert(ts int64) (del, ins int64) { return protocol.DeleteThenInsert(ts) }
