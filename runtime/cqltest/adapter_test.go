package cqltest

// The package's own tests run on gocql v1's codec, which the gocqlv1
// adapter registers; the gocqlv2 module's tests run cqltest on v2's.
import _ "github.com/cqlgen/cqlgen/runtime/gocqlv1"
