package integration

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// scanShares runs a scan method over every share of of, limit rows a
// page; when resumeAt > 0, the first share's worker stops after that many
// pages and a new repository resumes from its last cursor. It returns the
// share that read each visit, and how often each was read.
func scanShares(t *testing.T, of, limit, resumeAt int, repo, fresh *testmodel.VisitRepo, scan func(*testmodel.VisitRepo, *cqlgen.ScanOptions) (cqlgen.Page[testmodel.Visit], error)) (map[string]int, map[string]int) {
	t.Helper()
	share, count := map[string]int{}, map[string]int{}
	for split := range of {
		o := &cqlgen.ScanOptions{Limit: limit, Split: split, Of: of}
		r := repo
		for pages := 1; ; pages++ {
			p, err := scan(r, o)
			if err != nil {
				t.Fatalf("share %d of %d, page %d: %v", split, of, pages, err)
			}
			for _, v := range p.Rows {
				share[v.VisitID] = split
				count[v.VisitID]++
			}
			if p.Cursor == "" {
				break
			}
			o.Cursor = p.Cursor
			if split == 0 && pages == resumeAt {
				r = fresh // the worker crashed; another resumes from its cursor
			}
		}
	}
	return share, count
}

// nodeIDs are the visit ids of a table, read with plain gocql; on the
// source of truth, graves (cqlgen_deleted) left out.
func nodeIDs(t *testing.T, raw *gocql.Session, table string) map[string]bool {
	t.Helper()
	cql := "SELECT visit_id FROM " + table
	if table == "visits" {
		cql = "SELECT visit_id, cqlgen_deleted FROM visits"
	}
	ids := map[string]bool{}
	it := raw.Query(cql).PageSize(500).Iter()
	var id string
	var deleted bool
	dest := []any{&id}
	if table == "visits" {
		dest = append(dest, &deleted)
	}
	for it.Scan(dest...) {
		if !deleted {
			ids[id] = true
		}
		deleted = false
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return ids
}

var visitScans = map[string]func(*testmodel.VisitRepo, *cqlgen.ScanOptions) (cqlgen.Page[testmodel.Visit], error){
	"visits": func(r *testmodel.VisitRepo, o *cqlgen.ScanOptions) (cqlgen.Page[testmodel.Visit], error) {
		return r.ScanVisits(context.Background(), o)
	},
	"visits_by_user": func(r *testmodel.VisitRepo, o *cqlgen.ScanOptions) (cqlgen.Page[testmodel.Visit], error) {
		return r.ScanVisitsByUser(context.Background(), o)
	},
	"visits_by_site": func(r *testmodel.VisitRepo, o *cqlgen.ScanOptions) (cqlgen.Page[testmodel.Visit], error) {
		return r.ScanVisitsBySite(context.Background(), o)
	},
}

// The typed full-table read on the node and on cqltest: split into 5
// shares of 17-row pages, the first share resumed by a new repository
// after two pages, it reads every live visit of the source of truth
// (graves skipped), of a table whose partitions span many pages and of
// one split over 8 hash buckets (a composite partition key) exactly once,
// as many as a plain SELECT of the table counts. The share that reads
// each visit is the same on both backends, which holds cqltest's
// Murmur3 tokens to the node's, and on the node each row's token(), as
// the node computes it, lies in its share's (lo, hi].
func TestScanSplitAndResumed(t *testing.T) {
	const n, of = 600, 5
	key := []byte("scan test key")
	shares := map[string]map[string]int{} // backend/table → visit → share
	load := func(t *testing.T, s cqlgen.Session) map[string]bool {
		repo := testmodel.NewVisitRepo(s)
		live := map[string]bool{}
		for i := range n {
			v := visit(i)
			must(t, repo.Insert(context.Background(), v))
			live[v.VisitID] = true
			if i%29 == 5 {
				must(t, repo.Delete(context.Background(), v))
				delete(live, v.VisitID)
			}
		}
		return live
	}
	check := func(t *testing.T, backend string, s cqlgen.Session, want func(table string) map[string]bool) {
		repo := testmodel.NewVisitRepo(s, cqlgen.WithCursorKey(key))
		fresh := testmodel.NewVisitRepo(s, cqlgen.WithCursorKey(key))
		for table, scan := range visitScans {
			share, count := scanShares(t, of, 17, 2, repo, fresh, scan)
			w := want(table)
			if len(w) == 0 {
				t.Fatalf("%s: no rows to compare with", table)
			}
			for id, c := range count {
				if c != 1 || !w[id] {
					t.Errorf("%s: %s read %d times (in the table: %v)", table, id, c, w[id])
				}
			}
			for id := range w {
				if count[id] == 0 {
					t.Errorf("%s: %s never read", table, id)
				}
			}
			t.Logf("%s: %d rows in %d shares, %d in the table", table, len(count), of, len(w))
			shares[backend+"/"+table] = share
		}
	}
	t.Run("node", func(t *testing.T) {
		raw, s := repoSession(t, testmodel.Schema)
		load(t, s)
		check(t, "node", s, func(table string) map[string]bool { return nodeIDs(t, raw, table) })
		// The node's own token() of each row lies in the share that read it.
		for table, pk := range map[string]string{"visits_by_user": "user_id", "visits_by_site": "site, shard"} {
			share := shares["node/"+table]
			it := raw.Query(fmt.Sprintf("SELECT token(%s), visit_id FROM %s", pk, table)).PageSize(500).Iter()
			var tok int64
			var id string
			rows := 0
			for it.Scan(&tok, &id) {
				rows++
				lo, hi := shareRange(share[id], of)
				if tok <= lo || tok > hi {
					t.Errorf("%s: %s has token %d, outside share %d (%d, %d]", table, id, tok, share[id], lo, hi)
				}
			}
			must(t, it.Close())
			if rows == 0 {
				t.Errorf("%s: no tokens read", table)
			}
		}
	})
	t.Run("cqltest", func(t *testing.T) {
		s, err := cqltest.New(testmodel.Schema)
		must(t, err)
		live := load(t, s)
		check(t, "cqltest", s, func(string) map[string]bool { return live })
	})
	for table := range visitScans {
		node, mem := shares["node/"+table], shares["cqltest/"+table]
		if node == nil || mem == nil {
			continue
		}
		if !maps.Equal(node, mem) {
			diff := 0
			for id, sh := range node {
				if mem[id] != sh {
					diff++
				}
			}
			t.Errorf("%s: %d visits read by another share on cqltest than on the node", table, diff)
		}
	}
}

// shareRange is the token range of share i of n, as the runtime splits
// the ring: n equal ranges, the last ending at the maximum token.
func shareRange(i, n int) (lo, hi int64) {
	step := uint64(math.MaxUint64) / uint64(n)
	lo = math.MinInt64 + int64(uint64(i)*step)
	hi = math.MinInt64 + int64(uint64(i+1)*step)
	if i == n-1 {
		hi = math.MaxInt64
	}
	return lo, hi
}

// A cursor whose paging state was forged, its checksum made good again
// (no cursor key: the state travels in clear), is refused by the node
// and by cqltest with an *InputError (ErrInvalidCursor), never a panic
// nor a scan from elsewhere.
func TestScanForgedPagingState(t *testing.T) {
	onBoth(t, testmodel.Schema, func(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
		ctx := context.Background()
		repo := testmodel.NewVisitRepo(s)
		for i := range 40 {
			must(t, repo.Insert(ctx, visit(i)))
		}
		p, err := repo.ScanVisitsByUser(ctx, &cqlgen.ScanOptions{Limit: 3})
		must(t, err)
		raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		must(t, err)
		// An unsealed scan cursor is version(1) fingerprint(8) kind(1)
		// count(1) then the paging state's length and bytes, and a CRC-32
		// of all before it: garble the state's first bytes (its layout's
		// own lengths, on either backend) and make the sum good again.
		body := raw[:len(raw)-4]
		_, k := binary.Uvarint(body[11:])
		state := body[11+k:]
		state[0] ^= 0xA5
		state[1] ^= 0xA5
		forged := base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint32(body, crc32.ChecksumIEEE(body)))
		_, err = repo.ScanVisitsByUser(ctx, &cqlgen.ScanOptions{Limit: 3, Cursor: forged})
		var ie *cqlgen.InputError
		if !errors.As(err, &ie) || !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("a forged paging state: %v, want an *cqlgen.InputError (ErrInvalidCursor)", err)
		}
	})
}
