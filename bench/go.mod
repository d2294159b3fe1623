module github.com/cqlgen/cqlgen/bench

go 1.26.0

replace github.com/cqlgen/cqlgen => ../

require (
	github.com/cqlgen/cqlgen v0.0.0
	github.com/gocql/gocql v1.7.0
	github.com/scylladb/gocqlx/v2 v2.8.0
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/scylladb/go-reflectx v1.0.1 // indirect
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da // indirect
	golang.org/x/sync v0.24.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

tool (
	github.com/cqlgen/cqlgen/cmd/cqlgen
	golang.org/x/perf/cmd/benchstat
)
