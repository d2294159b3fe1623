package value

// The runtime encodes keys with the codecs of the drivers linked into the
// program; the package's tests link gocql v1's, as a program using the
// gocqlv1 adapter does. The package itself imports no driver.
import _ "github.com/cqlgen/cqlgen/runtime/gocqlv1"
