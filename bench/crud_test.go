package bench_test

import (
	"fmt"
	"testing"

	"github.com/scylladb/gocqlx/v2/table"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// Workload 2: insert one entity into its one table, and get one by key.

const (
	insertUser = "INSERT INTO users (user_id, name, email, country, age, score, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
	getUser    = "SELECT user_id, name, email, country, age, score, created_at FROM users WHERE user_id = ?"
)

// usersTable is users as gocqlx describes it, its statements built once.
var usersTable = table.New(table.Metadata{
	Name:    "users",
	Columns: []string{"user_id", "name", "email", "country", "age", "score", "created_at"},
	PartKey: []string{"user_id"},
})

func toUser(r benchenv.UserRow) model.User {
	return model.User{UserID: r.UserID, Name: r.Name, Email: r.Email, Country: r.Country, Age: r.Age, Score: r.Score, CreatedAt: r.CreatedAt}
}

// ring is the users an insert benchmark cycles through, built before it
// starts so that making them costs no peer anything.
func ring(prefix string) []model.User {
	us := make([]model.User, 1024)
	for i := range us {
		us[i] = toUser(benchenv.User(prefix, i))
	}
	return us
}

func insertImpls(p peers) []benchenv.Impl {
	repo := model.NewUserRepo(p.cq)
	raw, x, gen := ring("ins-gocql-"), ring("ins-gocqlx-"), ring("ins-cqlgen-")
	return []benchenv.Impl{
		{Name: "gocql", Op: func(i int) error {
			u := &raw[i%len(raw)]
			return p.s.Query(insertUser, u.UserID, u.Name, u.Email, u.Country, u.Age, u.Score, u.CreatedAt).Exec()
		}},
		{Name: "gocqlx", Op: func(i int) error {
			return usersTable.InsertQuery(p.sx).BindStruct(&x[i%len(x)]).ExecRelease()
		}},
		{Name: "cqlgen", Op: func(i int) error {
			return repo.Insert(ctx, &gen[i%len(gen)])
		}},
	}
}

func BenchmarkInsert(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { run(b, warmCalls(), insertImpls(p)...) })
}

func BenchmarkInsertPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { benchenv.Paired(b, warmCalls(), insertImpls(p)...) })
}

func getImpls(p peers) []benchenv.Impl {
	repo := model.NewUserRepo(p.cq)
	keys := make([]string, nUsers)
	for i := range keys {
		keys[i] = benchenv.UserKey(i, nUsers)
	}
	check := func(u *model.User, key string, err error) error {
		if err == nil && u.UserID != key {
			err = fmt.Errorf("got user %q, want %q", u.UserID, key)
		}
		return err
	}
	return []benchenv.Impl{
		{Name: "gocql", Op: func(i int) error {
			key := keys[i%len(keys)]
			var u model.User
			err := p.s.Query(getUser, key).Scan(&u.UserID, &u.Name, &u.Email, &u.Country, &u.Age, &u.Score, &u.CreatedAt)
			return check(&u, key, err)
		}},
		{Name: "gocqlx", Op: func(i int) error {
			key := keys[i%len(keys)]
			var u model.User
			err := usersTable.GetQuery(p.sx).BindStruct(&model.User{UserID: key}).GetRelease(&u)
			return check(&u, key, err)
		}},
		{Name: "cqlgen", Op: func(i int) error {
			key := keys[i%len(keys)]
			u, err := repo.Get(ctx, key)
			if err != nil {
				return err
			}
			return check(u, key, nil)
		}},
	}
}

func BenchmarkGet(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { run(b, warmCalls(), getImpls(p)...) })
}

func BenchmarkGetPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { benchenv.Paired(b, warmCalls(), getImpls(p)...) })
}
