package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
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
func loadTracks(t testing.TB, raw *gocql.Session, n int) { writeTracks(t, raw, n, true) }

// writeTracks is loadTracks; with versioned false it leaves
// cqlgen_version out, as another program writes the rows cqlgen then
// adopts.
func writeTracks(t testing.TB, raw *gocql.Session, n int, versioned bool) {
	t.Helper()
	stmt := "INSERT INTO tracks (track_id, artist_id, play_count, track_name, album, duration_s) VALUES (?, ?, ?, ?, ?, ?)"
	if versioned {
		stmt = "INSERT INTO tracks (track_id, artist_id, play_count, track_name, album, duration_s, cqlgen_version) VALUES (?, ?, ?, ?, ?, ?, ?)"
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				args := []any{fmt.Sprintf("t%07d", i), fmt.Sprintf("a%d", i%97), int64(i % 1000), "song", "album", int32(180 + i%60)}
				if versioned {
					args = append(args, int64(1_000_000+i))
				}
				if err := raw.Query(stmt, args...).Exec(); err != nil {
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

// workerKeyspace is cassandratest.Keyspace replicated as a cluster of
// several nodes is: NetworkTopologyStrategy, every datacenter holding
// min(its nodes, 3) replicas (cluster.sh's dc1 2 + dc2 1: RF 3, as the
// cluster suite's keyspaces). cassandratest's SimpleStrategy with one
// replica cannot serve LOCAL_QUORUM there: a row whose one replica is in
// dc2 has none in a dc1 coordinator's datacenter, and Cassandra answers
// "Cannot achieve consistency level LOCAL_QUORUM" (Unavailable). On one
// node the keyspace stays as cassandratest makes it.
func workerKeyspace(b testing.TB) (*gocql.Session, string) {
	b.Helper()
	raw, ks := cassandratest.Keyspace(b)
	// Both tables from one node, which lists itself in system.local and
	// every other node in system.peers: two coordinators would list one
	// node twice and another not at all.
	pin := cassandratest.Session(b, func(c *gocql.ClusterConfig) {
		c.Hosts = c.Hosts[:1]
		c.DisableInitialHostLookup = true
		host, _, err := net.SplitHostPort(c.Hosts[0])
		if err != nil {
			host = c.Hosts[0] // no port
		}
		c.HostFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool { return h.ConnectAddress().String() == host })
	})
	nodes := map[string]string{} // address → datacenter
	var addr net.IP
	var dc string
	if err := pin.Query("SELECT broadcast_address, data_center FROM system.local").Scan(&addr, &dc); err != nil {
		b.Fatal(err)
	}
	nodes[addr.String()] = dc
	it := pin.Query("SELECT peer, data_center FROM system.peers").Iter()
	for it.Scan(&addr, &dc) {
		nodes[addr.String()] = dc
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	if len(nodes) == 1 {
		return raw, ks
	}
	dcs := map[string]int{}
	for _, dc := range nodes {
		dcs[dc]++
	}
	var repl []string
	for dc, n := range dcs {
		repl = append(repl, fmt.Sprintf("'%s': %d", dc, min(n, 3)))
	}
	slices.Sort(repl)
	alter := "ALTER KEYSPACE " + ks + " WITH replication = {'class': 'NetworkTopologyStrategy', " + strings.Join(repl, ", ") + "}"
	if err := raw.Query(alter).Exec(); err != nil {
		b.Fatalf("%s: %v", alter, err)
	}
	b.Logf("%s", alter)
	return raw, ks
}

// cpuClock is the unit of /proc's CPU times: USER_HZ, 100 a second on
// every Linux.
const cpuClock = 100

// procCPU returns the CPU time (user and system) process pid has used,
// in seconds, from /proc/pid/stat.
func procCPU(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// After the command's ")": state, ppid, ... utime is the 12th field
	// and stime the 13th (fields 14 and 15 of proc(5)).
	_, rest, ok := strings.Cut(string(raw), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, raw)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, raw)
	}
	return float64(u+s) / cpuClock, nil
}

// machineBusy returns the CPU time every core of the machine has spent
// busy (neither idle nor waiting on I/O), in seconds, from /proc/stat.
func machineBusy() (float64, error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: %q", line)
	}
	var busy int64
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %q", line)
		}
		if i != 3 && i != 4 && i < 8 { // idle, iowait; guest is in user already
			busy += n
		}
	}
	return float64(busy) / cpuClock, nil
}

// nodePids reads the pids of the Cassandra nodes under test from the pid
// files CQLGEN_WORKER_PIDFILES names (space-separated globs: cluster.sh's
// /tmp/cqlgen-cluster/node*/cassandra.pid, cassandra.sh's
// /tmp/cqlgen-cassandra/cassandra.pid); none when it is unset.
func nodePids(b testing.TB) []int {
	var pids []int
	for _, pattern := range strings.Fields(os.Getenv("CQLGEN_WORKER_PIDFILES")) {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			b.Fatalf("CQLGEN_WORKER_PIDFILES: %q names no pid file", pattern)
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
			if err != nil {
				b.Fatalf("%s: %q is no pid", f, raw)
			}
			if _, err := procCPU(pid); err != nil {
				b.Fatalf("%s: pid %d: %v", f, pid, err)
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

// nodesCPU sums procCPU over pids.
func nodesCPU(b testing.TB, pids []int) float64 {
	var sum float64
	for _, pid := range pids {
		s, err := procCPU(pid)
		if err != nil {
			b.Fatalf("a Cassandra node under test (pid %d) is gone: %v", pid, err)
		}
		sum += s
	}
	return sum
}

// BenchmarkMaintainWorkers is issue 38's scaling: a backfill, a verify
// by job and an adopt of CQLGEN_WORKER_ROWS tracks (20,000) by 1, 2 and 4
// worker processes of example/maintain, unthrottled, each with
// -concurrency 4 over its share of 256 ranges; rows/s is the job's, from
// the first worker's start to the last one's end. Each run checks that
// its workers together did every row (inserted, read, adopted n).
//
// Beside rows/s, where the CPU went during the run, in cores (CPU
// seconds a second of the run): busy-cores, the whole machine's;
// worker-cores, the workers'; node-cores, the Cassandra nodes' whose pid
// files CQLGEN_WORKER_PIDFILES names (unset: not measured).
//
// The backfill first empties top_tracks_by_artist; the verify (by job,
// at the session's level) runs over a filled one (it backfills it first,
// untimed, if need be); the adopt first writes the tracks again without
// their version, and empties top_tracks_by_artist, which it fills. With
// -count n each size runs n times in a row: interleave them by a loop
// instead (bench/README.md, "Maintenance across workers", and make
// maintain-scale, maintain-scale-cluster). On a cluster of several
// nodes, the keyspace is workerKeyspace's.
func BenchmarkMaintainWorkers(b *testing.B) {
	raw, ks := workerKeyspace(b)
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
	pids := nodePids(b)
	env := append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(cassandratest.Hosts(b), ","), "CQLGEN_KEYSPACE="+ks)
	exec1 := func(b *testing.B, q string) {
		if err := raw.Query(q).Exec(); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	job := 0
	// run runs mode's job with workers processes and returns the sum of
	// their reports' rows, inserted and adopted, and their CPU seconds.
	run := func(b *testing.B, mode string, workers int) (sum cqlmaintain.Report, inserted int64, cpu float64) {
		job++
		args := []string{mode, "-entity", "Track", "-job", fmt.Sprintf("%s-%d", mode, job), "-ranges", "256", "-concurrency", "4", "-json"}
		if mode != "adopt" {
			args = append(args, "-table", "top_tracks_by_artist")
		}
		cmds := make([]*exec.Cmd, workers)
		outs, errs := make([]bytes.Buffer, workers), make([]bytes.Buffer, workers)
		for k := range workers {
			cmds[k] = exec.Command(bin, append(args, "-shard", fmt.Sprintf("%d/%d", k, workers))...)
			cmds[k].Env = env
			cmds[k].Stdout, cmds[k].Stderr = &outs[k], &errs[k]
			if err := cmds[k].Start(); err != nil {
				b.Fatal(err)
			}
		}
		for k, c := range cmds {
			if err := c.Wait(); err != nil {
				b.Fatalf("%s worker %d of %d: %v\n%s%s", mode, k, workers, err, outs[k].String(), errs[k].String())
			}
			cpu += (c.ProcessState.UserTime() + c.ProcessState.SystemTime()).Seconds()
			var rep cqlmaintain.Report
			if err := json.Unmarshal(outs[k].Bytes(), &rep); err != nil {
				b.Fatalf("%s worker %d of %d: %v\n%s", mode, k, workers, err, outs[k].String())
			}
			sum.Rows += rep.Rows
			sum.Adopted += rep.Adopted
			if mode == "backfill" {
				inserted += rep.Tables[0].Inserted
			}
		}
		return sum, inserted, cpu
	}
	filled := false // top_tracks_by_artist holds every track's row
	for _, mode := range []string{"backfill", "verify", "adopt"} {
		for _, workers := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/rows=%d/workers=%d", mode, n, workers), func(b *testing.B) {
				for b.Loop() {
					switch mode {
					case "backfill":
						exec1(b, "TRUNCATE top_tracks_by_artist")
						filled = false
					case "verify":
						if !filled {
							run(b, "backfill", 4)
							filled = true
						}
					case "adopt":
						exec1(b, "TRUNCATE tracks")
						exec1(b, "TRUNCATE top_tracks_by_artist")
						filled = false
						writeTracks(b, raw, n, false)
					}
					busy0, err := machineBusy()
					if err != nil {
						b.Fatal(err)
					}
					nodes0 := nodesCPU(b, pids)
					start := time.Now()
					rep, inserted, cpu := run(b, mode, workers)
					elapsed := time.Since(start).Seconds()
					busy1, err := machineBusy()
					if err != nil {
						b.Fatal(err)
					}
					nodes1 := nodesCPU(b, pids)
					switch {
					case rep.Rows != int64(n):
						b.Fatalf("%s: the workers read %d tracks, want %d", mode, rep.Rows, n)
					case mode == "backfill" && inserted != int64(n):
						b.Fatalf("backfill: the workers wrote %d rows, want %d", inserted, n)
					case mode == "adopt" && rep.Adopted != int64(n):
						b.Fatalf("adopt: the workers adopted %d rows, want %d", rep.Adopted, n)
					}
					filled = true
					b.ReportMetric(float64(n)/elapsed, "rows/s")
					b.ReportMetric((busy1-busy0)/elapsed, "busy-cores")
					b.ReportMetric(cpu/elapsed, "worker-cores")
					if len(pids) > 0 {
						b.ReportMetric((nodes1-nodes0)/elapsed, "node-cores")
					}
				}
			})
		}
	}
}
