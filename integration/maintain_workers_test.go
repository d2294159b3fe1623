package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// workerRows is the size of TestWorkersKilledAndRestarted:
// CQLGEN_WORKER_ROWS, or 20,000 (make maintain-workers runs more).
func workerRows(t *testing.T) int {
	if v := os.Getenv("CQLGEN_WORKER_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CQLGEN_WORKER_ROWS=%q", v)
		}
		return n
	}
	return 20_000
}

// worker is one process of example/maintain, a worker of a sharded job.
type worker struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

// The shape of the Kubernetes Indexed Job of example/maintain/k8s, on the
// local node: 4 worker processes of example/maintain backfill one job,
// each told its share as Kubernetes tells a pod (JOB_COMPLETION_INDEX,
// CQLGEN_SHARDS); 2 are killed (SIGKILL) mid-run and started again with
// the same index, as the Job's backoffLimitPerIndex does. Every range is
// done; no range recorded done is done again (a restarted worker skips
// exactly the ranges its killed run recorded, and writes the rows of the
// others only); a range in flight at the kill, not recorded, is done
// again, which rewrites its rows at the same write timestamps: the same
// cells, no harm. Every row of the source of truth is counted in exactly
// one range; then 4 workers verify the job at ALL and find 0 drift, and
// status sums both jobs across the workers.
func TestWorkersKilledAndRestarted(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, music.Schema)
	n := workerRows(t)
	const shards, ranges = 4, 256
	loadTracks(t, raw, n)

	bin := filepath.Join(t.TempDir(), "maintain")
	build := exec.Command("go", "build", "-o", bin, "./example/maintain")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building example/maintain: %v\n%s", err, out)
	}
	// A rate that makes the run last about 8 s whatever n, so that a
	// kill lands mid-run: the job's, split among the 4.
	rate := max(n/8, 400)
	start := func(shard int, args ...string) *worker {
		w := &worker{cmd: exec.Command(bin, args...), done: make(chan error, 1)}
		w.cmd.Env = append(os.Environ(), hostsEnv(t), "CQLGEN_KEYSPACE="+ks,
			fmt.Sprintf("JOB_COMPLETION_INDEX=%d", shard), fmt.Sprintf("CQLGEN_SHARDS=%d", shards))
		w.cmd.Stdout, w.cmd.Stderr = &w.stdout, &w.stderr
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { w.done <- w.cmd.Wait() }()
		t.Cleanup(func() { _ = w.cmd.Process.Kill() })
		return w
	}
	backfill := []string{"backfill", "-entity", "Track", "-table", "top_tracks_by_artist", "-job", "refill",
		"-ranges", strconv.Itoa(ranges), "-rate", strconv.Itoa(rate), "-json"}
	const job = "refill/top_tracks_by_artist/256"
	recorded := func() map[int]int64 {
		got := map[int]int64{}
		it := raw.Query("SELECT range_index, rows FROM cqlgen_progress WHERE job = ?", job).Iter()
		var i int
		var rows int64
		for it.Scan(&i, &rows) {
			got[i] = rows
		}
		must(t, it.Close())
		return got
	}
	ofShard := func(m map[int]int64, shard int) map[int]int64 {
		out := map[int]int64{}
		for i, r := range m {
			if i%shards == shard {
				out[i] = r
			}
		}
		return out
	}
	began := time.Now()
	workers := make([]*worker, shards)
	for k := range shards {
		workers[k] = start(k, backfill...)
	}
	// Kill workers 1 and 3 once each has recorded a few ranges.
	killed := []int{1, 3}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		rec := recorded()
		if len(ofShard(rec, 1)) >= 4 && len(ofShard(rec, 3)) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers 1 and 3 recorded %d and %d ranges in 60 s", len(ofShard(rec, 1)), len(ofShard(rec, 3)))
		}
	}
	for _, k := range killed {
		must(t, workers[k].cmd.Process.Kill())
		if err := <-workers[k].done; err == nil {
			t.Fatalf("worker %d ended before its kill: the run was too short to kill mid-run\n%s", k, workers[k].stdout.String())
		}
	}
	atKill := recorded()
	for _, k := range killed {
		if got := len(ofShard(atKill, k)); got >= ranges/shards {
			t.Fatalf("worker %d had recorded all its %d ranges when killed: not mid-run", k, got)
		}
	}
	t.Logf("killed workers 1 and 3 after %v, with %d and %d of their %d ranges recorded", time.Since(began).Round(time.Millisecond),
		len(ofShard(atKill, 1)), len(ofShard(atKill, 3)), ranges/shards)
	for _, k := range killed {
		workers[k] = start(k, backfill...)
	}
	reports := make([]cqlmaintain.Report, shards)
	for k, w := range workers {
		if err := <-w.done; err != nil {
			t.Fatalf("worker %d: %v\n%s%s", k, err, w.stdout.String(), w.stderr.String())
		}
		must(t, json.Unmarshal(w.stdout.Bytes(), &reports[k]))
	}
	elapsed := time.Since(began)
	final := recorded()
	if len(final) != ranges {
		t.Fatalf("%d of %d ranges recorded", len(final), ranges)
	}
	var total int64
	for _, r := range final {
		total += r
	}
	if total != int64(n) {
		t.Errorf("the ranges recorded %d rows in all, want %d: each row counted in exactly one range", total, n)
	}
	for k, rep := range reports {
		var before map[int]int64 // what the worker's killed run recorded
		if slices.Contains(killed, k) {
			before = ofShard(atKill, k)
		}
		var rest int64
		for i, r := range ofShard(final, k) {
			if _, ok := before[i]; !ok {
				rest += r
			}
		}
		// The restarted worker skipped exactly what its killed run
		// recorded, and wrote the rows of the other ranges, once.
		if rep.Shard != k || rep.Shards != shards || rep.Resumed != len(before) || rep.Tables[0].Inserted != rest {
			t.Errorf("worker %d: shard %d/%d, skipped %d ranges, wrote %d rows; want shard %d/%d, %d skipped, %d written",
				k, rep.Shard, rep.Shards, rep.Resumed, rep.Tables[0].Inserted, k, shards, len(before), rest)
		}
	}
	t.Logf("backfill of %d rows by 4 workers at -rate %d, 2 killed and restarted: %v", n, rate, elapsed.Round(time.Millisecond))

	// Verify the job: 4 workers, at ALL, each with -shard.
	var read int64
	for k := range shards {
		workers[k] = start(k, "verify", "-entity", "Track", "-table", "top_tracks_by_artist", "-job", "check",
			"-ranges", strconv.Itoa(ranges), "-consistency", "ALL", "-shard", fmt.Sprintf("%d/%d", k, shards), "-json")
	}
	for k, w := range workers {
		if err := <-w.done; err != nil {
			t.Fatalf("verify worker %d: %v (exit 1 is drift)\n%s%s", k, err, w.stdout.String(), w.stderr.String())
		}
		var rep cqlmaintain.Report
		must(t, json.Unmarshal(w.stdout.Bytes(), &rep))
		if rep.Drift() != 0 {
			t.Errorf("verify worker %d: drift %+v", k, rep.Tables)
		}
		read += rep.Rows
	}
	if read != int64(n) {
		t.Errorf("the verify workers read %d tracks, want %d", read, n)
	}
	st := start(0, "status", "-entity", "Track", "-table", "top_tracks_by_artist", "-job", "check", "-ranges", strconv.Itoa(ranges))
	if err := <-st.done; err != nil {
		t.Fatalf("status: %v\n%s%s", err, st.stdout.String(), st.stderr.String())
	}
	if out := st.stdout.String(); !strings.Contains(out, fmt.Sprintf("verify: %d/%d token ranges done, %d rows", ranges, ranges, n)) || !strings.Contains(out, "drift 0") {
		t.Errorf("status of the verify:\n%s", out)
	}
}

// loadTracks writes n tracks of example/music straight into their source
// of truth, each with a version as the write protocol gives it, and
// nothing in top_tracks_by_artist: a new access pattern to backfill.
func loadTracks(t testing.TB, raw *gocql.Session, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				if err := raw.Query("INSERT INTO tracks (track_id, artist_id, play_count, track_name, album, duration_s, cqlgen_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
					fmt.Sprintf("t%07d", i), fmt.Sprintf("a%d", i%97), int64(i%1000), "song", "album", int32(180+i%60), int64(1_000_000+i)).Exec(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkMaintainWorkers is issue 38's scaling on the node: a backfill
// of CQLGEN_WORKER_ROWS tracks (20,000) by 1, 2 and 4 worker processes of
// example/maintain, unthrottled, each with -concurrency 4 over its share
// of 256 ranges; rows/s is the job's, from the first worker's start to
// the last one's end. With -count n the three sizes run in turn, n times
// (bench/README.md, "Maintenance across workers"):
//
//	cd integration && CASSANDRA_HOSTS=127.0.0.1:9042 go test -run '^$' -bench BenchmarkMaintainWorkers -benchtime=1x -count=3 .
func BenchmarkMaintainWorkers(b *testing.B) {
	raw, ks := cassandratest.Keyspace(b)
	cassandratest.MustApplyCQL(b, raw, music.Schema)
	n := 20_000
	if v := os.Getenv("CQLGEN_WORKER_ROWS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("CQLGEN_WORKER_ROWS=%q", v)
		}
	}
	loadTracks(b, raw, n)
	bin := filepath.Join(b.TempDir(), "maintain")
	build := exec.Command("go", "build", "-o", bin, "./example/maintain")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building example/maintain: %v\n%s", err, out)
	}
	hosts := "CASSANDRA_HOSTS=" + strings.Join(cassandratest.Hosts(b), ",")
	job := 0
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("backfill/rows=%d/workers=%d", n, workers), func(b *testing.B) {
			for b.Loop() {
				if err := raw.Query("TRUNCATE top_tracks_by_artist").Exec(); err != nil {
					b.Fatal(err)
				}
				job++
				start := time.Now()
				cmds := make([]*exec.Cmd, workers)
				outs := make([]bytes.Buffer, workers)
				for k := range workers {
					cmds[k] = exec.Command(bin, "backfill", "-entity", "Track", "-table", "top_tracks_by_artist",
						"-job", fmt.Sprintf("scale-%d", job), "-ranges", "256", "-concurrency", "4",
						"-shard", fmt.Sprintf("%d/%d", k, workers))
					cmds[k].Env = append(os.Environ(), hosts, "CQLGEN_KEYSPACE="+ks)
					cmds[k].Stdout, cmds[k].Stderr = &outs[k], &outs[k]
					if err := cmds[k].Start(); err != nil {
						b.Fatal(err)
					}
				}
				for k, c := range cmds {
					if err := c.Wait(); err != nil {
						b.Fatalf("worker %d of %d: %v\n%s", k, workers, err, outs[k].String())
					}
				}
				b.ReportMetric(float64(n)/time.Since(start).Seconds(), "rows/s")
			}
		})
	}
}
