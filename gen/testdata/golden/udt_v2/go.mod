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
	github.com/gocql/gocql v1.7.0 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
