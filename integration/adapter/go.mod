module example.com/countingadapter

go 1.26.0

replace (
	github.com/cqlgen/cqlgen => ../..
	github.com/cqlgen/cqlgen/cqlgentest => ../../cqlgentest
)

tool github.com/cqlgen/cqlgen/cmd/cqlgen

require (
	github.com/cqlgen/cqlgen v0.0.0
	github.com/cqlgen/cqlgen/cqlgentest v0.0.0
	github.com/gocql/gocql v1.7.0
)

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
