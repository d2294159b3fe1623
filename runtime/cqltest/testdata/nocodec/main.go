// Command nocodec makes a cqltest session in a program that links no
// driver adapter, and prints New's error (TestNewWithoutAnAdapter).
package main

import (
	"errors"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

func main() {
	_, err := cqltest.New("CREATE TABLE t (k int PRIMARY KEY)")
	fmt.Println(errors.Is(err, cqldriver.ErrNoCodec), err)
}
