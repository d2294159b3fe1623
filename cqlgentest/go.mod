module github.com/cqlgen/cqlgen/cqlgentest

go 1.26.0

replace github.com/cqlgen/cqlgen => ../

require (
	github.com/cqlgen/cqlgen v0.0.0-00010101000000-000000000000
	github.com/gocql/gocql v1.7.0
)

require (
	github.com/golang/snappy v0.0.4 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
