// A module of its own: the golden test generates this case with the
// driver's module at hand, and builds what it generates, without the ASF
// driver among cqlgen's own requirements.
module github.com/cqlgen/cqlgen/gen/testdata/golden/udt_v2

go 1.26.0

replace github.com/cqlgen/cqlgen => ../../../..

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/cqlgen/cqlgen v0.0.0
)

require (
	golang.org/x/sys v0.26.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
