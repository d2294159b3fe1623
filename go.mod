module github.com/cqlgen/cqlgen

go 1.26.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/gocql/gocql v1.7.0
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	golang.org/x/sync v0.24.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

tool github.com/cqlgen/cqlgen/cmd/cqlgen
