module github.com/cqlgen/cqlgen/runtime/gocqlv2

go 1.26.0

replace github.com/cqlgen/cqlgen => ../..

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/cqlgen/cqlgen v0.0.0
	gopkg.in/inf.v0 v0.9.1
)
