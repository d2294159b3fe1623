// A module of its own, which requires both drivers, so that the golden
// test can load this case: cqlgen's own module requires gocql v1 alone.
module github.com/cqlgen/cqlgen/gen/testdata/golden/bad_driver_mix

go 1.26.0

replace github.com/cqlgen/cqlgen => ../../../..

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/cqlgen/cqlgen v0.0.0
	github.com/gocql/gocql v1.7.0
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
