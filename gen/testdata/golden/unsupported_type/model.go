package unsupported_type

import (
	"math/big"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Address is a plain struct, which has no CQL mapping.
type Address struct{ City string }

// Opaque marshals itself but gives no CQL type.
type Opaque struct{}

// MarshalCQL implements gocql.Marshaler.
func (Opaque) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return nil, nil }

// UnmarshalCQL implements gocql.Unmarshaler.
func (*Opaque) UnmarshalCQL(gocql.TypeInfo, []byte) error { return nil }

// Shared embeds a struct.
type Shared struct{ CreatedBy string }

// Thing has fields of types cqlgen cannot store.
type Thing struct {
	_ cqlgen.Pattern `table:"things" pk:"id"`
	Shared

	ID      string         `db:"id"`
	Ch      chan int       `db:"ch"`
	Fn      func()         `db:"fn"`
	Any     any            `db:"any"`
	C       complex128     `db:"c"`
	Addr    Address        `db:"addr"`
	Arr     [4]int         `db:"arr"`
	PP      **string       `db:"pp"`
	Ptrs    []*string      `db:"ptrs"`
	BigVal  big.Int        `db:"big_val"`
	Opaque  Opaque         `db:"opaque"`
	Hidden  int            `db:"hidden_dup"`
	Hidden2 int            `db:"hidden_dup"`
	Map     map[string]any `db:"map"`
	private int            `db:"private"`
}
