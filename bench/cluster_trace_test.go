package bench_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// BenchmarkClusterTrace answers "where do the milliseconds of a
// three-table fan-out go at RF=3" (issue 27, goal 3): it turns tracing on
// for every request on every node (CQLGEN_BENCH_TRACE names cluster.sh
// trace), inserts b.N tickets of helpdesk (the write protocol: read of the
// canonical row, its conditional write, a logged batch of the two other
// tables), one at a time and a pause apart, turns tracing off, and prints
// from system_traces each request the server saw: its kind, coordinator,
// consistency and duration, with the client's time for the whole Insert;
// then every event of the median Insert's requests, by node and elapsed
// time. What is traced is what the session runs, so gocqlv1's cluster
// settings (or CQLGEN_BENCH_POLICY=dc for NewClusterDC("dc1")) apply.
func BenchmarkClusterTrace(b *testing.B) {
	if !benchenv.Cluster() || os.Getenv("CQLGEN_BENCH_TRACE") == "" {
		b.Skip("set " + benchenv.EnvCluster + "=1 and CQLGEN_BENCH_TRACE to cluster.sh trace")
	}
	env := clusterShared.Get(b)
	cfg := gocqlv1.NewCluster(env.Hosts...)
	if os.Getenv("CQLGEN_BENCH_POLICY") == "dc" {
		cfg = gocqlv1.NewClusterDC("dc1", env.Hosts...)
	}
	cfg.Keyspace = env.Keyspace
	raw, err := gocqlv1.CreateSession(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	var opts []cqlgen.Option
	if os.Getenv("CQLGEN_BENCH_STRATEGY") == "concurrent" {
		opts = append(opts, cqlgen.WithStrategy(cqlgen.Concurrent(0)))
	}
	repo := helpdesk.NewTicketRepo(gocqlv1.NewSession(raw, sessionOptions()), opts...)
	ticket := func(i int) *helpdesk.Ticket {
		return &helpdesk.Ticket{OrgID: "acme", TicketID: gocql.TimeUUID(), Requester: fmt.Sprintf("user%d@acme.test", i%7),
			Subject: "trace", Status: helpdesk.StatusOpen, AgentID: fmt.Sprint("agent-", i%3),
			OpenedAt: time.Now().UTC().Truncate(time.Millisecond), Body: "body"}
	}
	for i := range 50 { // prepare the statements, warm the path
		if err := repo.Insert(ctx, ticket(i)); err != nil {
			b.Fatal(err)
		}
	}
	trace := strings.Fields(os.Getenv("CQLGEN_BENCH_TRACE"))
	set := func(p string) {
		if out, err := exec.Command(trace[0], append(trace[1:], p)...).CombinedOutput(); err != nil {
			b.Fatalf("%s %s: %v\n%s", strings.Join(trace, " "), p, err, out)
		}
	}
	set("1")
	type call struct {
		start time.Time
		took  time.Duration
	}
	var calls []call
	for i := 0; b.Loop(); i++ {
		time.Sleep(50 * time.Millisecond) // requests of one Insert stay apart from the next's
		start := time.Now()
		if err := repo.Insert(ctx, ticket(i)); err != nil {
			set("0")
			b.Fatal(err)
		}
		calls = append(calls, call{start, time.Since(start)})
	}
	set("0")
	time.Sleep(3 * time.Second) // traces are written asynchronously

	type session struct {
		id       gocql.UUID
		coord    string
		started  time.Time
		duration int
		request  string
		params   map[string]string
	}
	var sessions []session
	it := raw.Query("SELECT session_id, coordinator, started_at, duration, request, parameters FROM system_traces.sessions").Consistency(gocql.One).Iter()
	var s session
	for it.Scan(&s.id, &s.coord, &s.started, &s.duration, &s.request, &s.params) {
		sessions = append(sessions, s)
		s = session{}
	}
	if err := it.Close(); err != nil {
		b.Fatal(err)
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].started.Before(sessions[j].started) })
	of := func(c call) []session {
		var in []session
		for _, s := range sessions {
			if !s.started.Before(c.start.Add(-time.Millisecond)) && s.started.Before(c.start.Add(c.took+time.Millisecond)) {
				in = append(in, s)
			}
		}
		return in
	}
	order := make([]int, len(calls))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return calls[order[i]].took < calls[order[j]].took })
	steps := map[string][]int{}
	for _, i := range order {
		c := calls[i]
		var parts []string
		server := 0
		for _, s := range of(c) {
			k := kind(s.request, s.params["query"])
			parts = append(parts, fmt.Sprintf("%s@%s %s %dµs", k, s.coord, s.params["consistency_level"], s.duration))
			server += s.duration
			steps[k] = append(steps[k], s.duration)
		}
		steps["client"] = append(steps["client"], int(c.took.Microseconds()))
		steps["client-server"] = append(steps["client-server"], int(c.took.Microseconds())-server)
		fmt.Printf("insert %5dµs  server %5dµs  %s\n", c.took.Microseconds(), server, strings.Join(parts, " | "))
	}
	fmt.Printf("\nmedians over %d inserts:", len(calls))
	for _, k := range []string{"client", "read", "cas", "batch", "write", "client-server"} {
		if v := steps[k]; len(v) > 0 {
			sort.Ints(v)
			fmt.Printf("  %s %dµs (%d)", k, v[len(v)/2], len(v))
		}
	}
	fmt.Println()
	type event struct {
		src, act, thread string
		el               int
	}
	events := func(id gocql.UUID) []event {
		var evs []event
		it := raw.Query("SELECT source, source_elapsed, activity, thread FROM system_traces.events WHERE session_id = ?", id).Consistency(gocql.One).Iter()
		var e event
		for it.Scan(&e.src, &e.el, &e.act, &e.thread) {
			evs = append(evs, e)
		}
		if err := it.Close(); err != nil {
			b.Fatal(err)
		}
		return evs
	}
	// Round trips from each coordinator to the other replicas: "Sending
	// X_REQ message to /peer" then "X_RSP message received from /peer", in
	// the coordinator's elapsed time. Messages of one type to several
	// peers (or several mutations to one) go at once: one round.
	sendRe := regexp.MustCompile(`^Sending (\w+)_REQ message to /([\d.]+)`)
	recvRe := regexp.MustCompile(`^(\w+)_RSP message received from /([\d.]+)`)
	rtts := map[string][]int{}
	var rounds []int
	for _, c := range calls {
		n := 0
		for _, s := range of(c) {
			sent := map[string][]int{}
			types := map[string]bool{}
			for _, e := range events(s.id) {
				if e.src != s.coord {
					continue
				}
				if m := sendRe.FindStringSubmatch(e.act); m != nil {
					sent[m[1]+m[2]] = append(sent[m[1]+m[2]], e.el)
					types[m[1]] = true
				} else if m := recvRe.FindStringSubmatch(e.act); m != nil && len(sent[m[1]+m[2]]) > 0 {
					rtts[m[1]] = append(rtts[m[1]], e.el-sent[m[1]+m[2]][0])
					sent[m[1]+m[2]] = sent[m[1]+m[2]][1:]
				}
			}
			n += len(types)
		}
		rounds = append(rounds, n)
	}
	sort.Ints(rounds)
	fmt.Printf("rounds of replica messages per insert (median): %d; round trip by message, median (count):", rounds[len(rounds)/2])
	var all []int
	names := make([]string, 0, len(rtts))
	for k := range rtts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := rtts[k]
		all = append(all, v...)
		sort.Ints(v)
		fmt.Printf("  %s %dµs (%d)", k, v[len(v)/2], len(v))
	}
	sort.Ints(all)
	if len(all) > 0 {
		fmt.Printf("  all %dµs", all[len(all)/2])
	}
	fmt.Println()

	median := calls[order[len(order)/2]]
	fmt.Printf("\nevents of the median Insert (%v):\n", median.took)
	for _, s := range of(median) {
		fmt.Printf("-- %s at %s, %dµs: %s\n", kind(s.request, s.params["query"]), s.coord, s.duration, s.params["query"])
		for _, e := range events(s.id) {
			fmt.Printf("   %-10s %6dµs  %-28s %s\n", e.src, e.el, e.thread, e.act)
		}
	}
}

// kind names a traced request by its statement.
func kind(request, query string) string {
	q := strings.Join(strings.Fields(strings.ToUpper(query)), " ")
	switch {
	case strings.Contains(request, "batch"):
		return "batch"
	case strings.HasPrefix(q, "SELECT"):
		return "read"
	case strings.Contains(q, " IF "):
		return "cas"
	default:
		return "write"
	}
}
