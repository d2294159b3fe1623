package bench_test

import (
	"testing"

	"github.com/gocql/gocql"
	"github.com/scylladb/gocqlx/v2"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// Workload 1: binding an entity's values to an insert, no server. A query
// made without a session binds like any other: Bind only keeps the
// values, which gocql marshals when it sends the query.

func BenchmarkBind(b *testing.B) {
	u := toUser(benchenv.User("bind-", 7))
	ts := benchenv.Epoch.UnixMicro()
	_, names := usersTable.Insert()
	b.Run("impl=gocql", func(b *testing.B) {
		q := new(gocql.Query)
		b.ReportAllocs()
		for b.Loop() {
			q.Bind(u.UserID, u.Name, u.Email, u.Country, u.Age, u.Score, u.CreatedAt)
		}
	})
	b.Run("impl=gocqlx-value", func(b *testing.B) {
		q := gocqlx.Query(new(gocql.Query), names)
		b.ReportAllocs()
		for b.Loop() {
			if err := q.BindStruct(u).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=gocqlx-pointer", func(b *testing.B) {
		q := gocqlx.Query(new(gocql.Query), names)
		b.ReportAllocs()
		for b.Loop() {
			if err := q.BindStruct(&u).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=cqlgen", func(b *testing.B) {
		q := new(gocql.Query)
		b.ReportAllocs()
		for b.Loop() {
			q.Bind(model.BindUser(&u, ts)...)
		}
	})
}
