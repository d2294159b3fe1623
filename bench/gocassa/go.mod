module github.com/cqlgen/cqlgen/bench/gocassa

go 1.26.0

require (
	github.com/cqlgen/cqlgen/bench v0.0.0
	github.com/gocql/gocql v1.7.0
	github.com/hailocab/gocassa v1.2.0
)

require (
	github.com/cqlgen/cqlgen v0.0.0 // indirect
	github.com/golang/snappy v0.0.4 // indirect
	github.com/google/btree v1.1.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	github.com/mitchellh/mapstructure v1.5.0 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace (
	github.com/cqlgen/cqlgen => ../../
	github.com/cqlgen/cqlgen/bench => ../

	// gocassa v1.2.0 compiles with no gocql after v1.0.0 (gocql's TypeInfo
	// has since gained a method its mock lacks), while cqlgen requires
	// v1.7.0, which minimal version selection would pick: hence this
	// module of its own, pinned to v1.0.0.
	github.com/gocql/gocql => github.com/gocql/gocql v1.0.0

	// gocassa v1.2.0 imports its own reflect package under its former
	// path, github.com/hailocab/gocassa/reflect, which the module proxy does
	// not serve. Used whole under that path, the module finds it.
	github.com/hailocab/gocassa => github.com/gocassa/gocassa v1.2.0
)
