package bench_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// Workload 9: a multi-get, the users with 10 and with 100 ids at once,
// two ways in raw gocql: one SELECT ... WHERE user_id IN (...) (one
// request, the coordinator fetches each partition), and one SELECT by
// key per id, sent at once up to 16 at a time (token-aware, each to a
// replica of its partition). The generated GetMany takes the faster,
// IN, and is measured beside them.

// multiGetKeys is the i-th batch of n distinct user ids, a quarter of
// them ids of no user, so that both ways also report missing keys.
func multiGetKeys(i, n int) []string {
	keys := make([]string, n)
	for j := range keys {
		if j%4 == 3 {
			keys[j] = fmt.Sprintf("missing-%06d", i*n+j)
			continue
		}
		keys[j] = benchenv.UserKey(i*n+j, nUsers)
	}
	return keys
}

// checkMany checks that every stored user of keys, and no other, came
// back, in the order of keys.
func checkMany(keys []string, got []*model.User) error {
	for j, k := range keys {
		want := !strings.HasPrefix(k, "missing-")
		switch {
		case want && (got[j] == nil || got[j].UserID != k):
			return fmt.Errorf("key %d (%s): got %v", j, k, got[j])
		case !want && got[j] != nil:
			return fmt.Errorf("key %d (%s): a user of no id came back", j, k)
		}
	}
	return nil
}

// inGet reads keys with one IN query and puts the rows back in key
// order.
func inGet(p peers, keys []string) ([]*model.User, error) {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ")
	args := make([]any, len(keys))
	for j, k := range keys {
		args[j] = k
	}
	it := p.s.Query("SELECT user_id, name, email, country, age, score, created_at FROM users WHERE user_id IN ("+marks+")", args...).Iter()
	byKey := make(map[string]*model.User, len(keys))
	for {
		u := new(model.User)
		if !it.Scan(&u.UserID, &u.Name, &u.Email, &u.Country, &u.Age, &u.Score, &u.CreatedAt) {
			break
		}
		byKey[u.UserID] = u
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	out := make([]*model.User, len(keys))
	for j, k := range keys {
		out[j] = byKey[k]
	}
	return out, nil
}

// concurrentGet reads keys with one query each, at most 16 at once.
func concurrentGet(p peers, keys []string) ([]*model.User, error) {
	out := make([]*model.User, len(keys))
	errs := make([]error, len(keys))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for j, k := range keys {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			u := new(model.User)
			err := p.s.Query(getUser, k).Scan(&u.UserID, &u.Name, &u.Email, &u.Country, &u.Age, &u.Score, &u.CreatedAt)
			switch {
			case err == nil:
				out[j] = u
			case !errors.Is(err, gocql.ErrNotFound):
				errs[j] = err
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func multiGetImpls(p peers, n int) []benchenv.Impl {
	repo := model.NewUserRepo(p.cq)
	batches := make([][]string, 64)
	for i := range batches {
		batches[i] = multiGetKeys(i, n)
	}
	each := func(get func(peers, []string) ([]*model.User, error)) func(int) error {
		return func(i int) error {
			keys := batches[i%len(batches)]
			got, err := get(p, keys)
			if err != nil {
				return err
			}
			return checkMany(keys, got)
		}
	}
	return []benchenv.Impl{
		{Name: "gocql-in", Op: each(inGet)},
		{Name: "gocql-concurrent", Op: each(concurrentGet)},
		{Name: "cqlgen", Op: each(func(_ peers, keys []string) ([]*model.User, error) {
			found, err := repo.GetMany(ctx, keys)
			return found.Rows, err
		})},
	}
}

func BenchmarkMultiGet(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, n := range []int{10, 100} {
			b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) { run(b, warmCalls(), multiGetImpls(p, n)...) })
		}
	})
}

func BenchmarkMultiGetPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, n := range []int{10, 100} {
			b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) { benchenv.Paired(b, warmCalls(), multiGetImpls(p, n)...) })
		}
	})
}
