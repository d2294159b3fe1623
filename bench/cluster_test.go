package bench_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Issue 27, goal 3: the write protocol on three nodes (RF=3, QUORUM and
// SERIAL), under Paxos v1 and v2. Run with CQLGEN_BENCH_CLUSTER=1 against
// the managed cluster (make bench-cluster; bench/README.md, "Issue 27,
// goal 3"). CQLGEN_BENCH_PAXOS names the command that sets the Paxos
// variant of every node, given v1 or v2 (cluster.sh paxos): each
// sub-benchmark paxos=vN sets it first, so that with -count the two
// variants take turns on the same cluster, in the same minutes.

// envPaxos names the command that switches every node's paxos_variant.
const envPaxos = "CQLGEN_BENCH_PAXOS"

// sessionOptions are the levels of cqlgen's sessions: QUORUM and SERIAL on
// a cluster, as the hand-written peers get from benchenv.NewCluster;
// otherwise the defaults (LOCAL_QUORUM, LOCAL_SERIAL).
func sessionOptions() *cqlgen.SessionOptions {
	if !benchenv.Cluster() {
		return nil
	}
	return &cqlgen.SessionOptions{ReadConsistency: cqlgen.Quorum, WriteConsistency: cqlgen.Quorum, SerialConsistency: cqlgen.Serial}
}

// clusterTables are the tables the cluster benchmarks write: creating the
// whole model at RF=3 on two loaded cores takes minutes.
var clusterTables = regexp.MustCompile(`(?i)^CREATE TABLE IF NOT EXISTS (tallies|tallies_by_board|standings|standings_by_\w+|agents|agents_by_email|tickets|tickets_by_requester|open_tickets_by_agent|cqlgen_idempotency|cqlgen_progress) \(`)

func clusterSchema() string {
	var b strings.Builder
	for _, script := range []string{model.Schema, helpdesk.Schema} {
		for _, st := range cqlscript.Split(script) {
			if clusterTables.MatchString(st.Text) && !strings.Contains(b.String(), strings.SplitN(st.Text, "(", 2)[0]) {
				b.WriteString(st.Text + ";\n")
			}
		}
	}
	return b.String()
}

// clusterShared is the cluster benchmarks' keyspace: no data loaded.
var clusterShared = &benchenv.Shared{Prefix: "cqlgen_cluster", Schema: clusterSchema()}

// setPaxos runs CQLGEN_BENCH_PAXOS with variant.
func setPaxos(b *testing.B, variant string) {
	cmd := strings.Fields(os.Getenv(envPaxos))
	if len(cmd) == 0 {
		b.Fatalf("paxos=%s: set %s to the command that sets it on every node (cluster.sh paxos)", variant, envPaxos)
	}
	out, err := exec.Command(cmd[0], append(cmd[1:], variant)...).CombinedOutput()
	if err != nil {
		b.Fatalf("%s %s: %v\n%s", strings.Join(cmd, " "), variant, err, out)
	}
}

// clusterWarm is the warm-up of each peer: a switch of the Paxos variant
// is followed by calls of every peer before any is measured.
const clusterWarm = 50

// BenchmarkClusterPaxos runs, under each Paxos variant in turn, the write
// protocol of a Tally (two tables) and of a Standing (four), a unique
// claim (an Agent's email: on Insert, and on a change of the email) and
// Modify, each paired with what a careful engineer writes by hand for the
// same guarantee. The variants are those of CQLGEN_BENCH_PAXOS_VARIANTS,
// in its order ("v1 v2" by default; "v1 v2 v1 v2 v1 v2" for three turns
// of each, which go test names paxos=v1, paxos=v2, paxos=v1#01, ...);
// "-" leaves the cluster as it is.
func BenchmarkClusterPaxos(b *testing.B) {
	if !benchenv.Cluster() {
		b.Skip("not a cluster: set " + benchenv.EnvCluster + "=1 (make bench-cluster)")
	}
	env := clusterShared.Get(b)
	s := env.Session(benchenv.Coalescing[0])
	p := peers{s: s, cq: gocqlv1.NewSession(s, sessionOptions())}
	variants := strings.Fields(os.Getenv("CQLGEN_BENCH_PAXOS_VARIANTS"))
	if len(variants) == 0 {
		variants = []string{"v1", "v2"}
	}
	for _, v := range variants {
		b.Run("paxos="+v, func(b *testing.B) {
			if v != "-" {
				setPaxos(b, v)
			}
			tallyPool = clusterPool()
			for _, op := range []string{"insert", "update", "delete"} {
				b.Run("entity=tally/op="+op, func(b *testing.B) {
					benchenv.Paired(b, clusterWarm, tallyCase(p).impls(b, op)...)
				})
			}
			for _, op := range []string{"insert", "update", "delete"} {
				b.Run("entity=standing/op="+op, func(b *testing.B) {
					benchenv.Paired(b, clusterWarm, standingCase(p).impls(b, op)...)
				})
			}
			for _, op := range []string{"insert", "change"} {
				b.Run("claim/op="+op, func(b *testing.B) {
					benchenv.Paired(b, clusterWarm, claimImpls(b, p, op)...)
				})
			}
			b.Run("modify", func(b *testing.B) {
				benchenv.Paired(b, clusterWarm, modifyImpls(b, p)...)
			})
			b.Run("fanout", func(b *testing.B) {
				benchenv.Paired(b, clusterWarm, fanoutImpls(p)...)
			})
		})
	}
}

// clusterPool is how many entities an update, delete or change workload
// writes first: more than the calls a run makes of each (its warm-up,
// then -benchtime Nx rounds), so that each Delete deletes a live entity;
// CQLGEN_BENCH_POOL overrides it, and a smoke run takes 64.
func clusterPool() int {
	if benchenv.Small() {
		return 64
	}
	var n int
	if _, err := fmt.Sscan(os.Getenv("CQLGEN_BENCH_POOL"), &n); err == nil && n > 0 {
		return n
	}
	if f := flag.Lookup("test.benchtime"); f != nil {
		if v, ok := strings.CutSuffix(f.Value.String(), "x"); ok {
			if _, err := fmt.Sscan(v, &n); err == nil && n > 0 {
				return clusterWarm + n + 10
			}
		}
	}
	return 1000
}

// The unique claim written by hand: an agent's email is claimed by a
// conditional insert into agents_by_email before the agent's own row is
// written (conditionally too, so that two writers of one agent take
// turns); a change of the email reads the agent, claims the new email,
// writes the agent on the version read, and gives the old email up by a
// delete conditional on still holding it.
const (
	handClaim    = "INSERT INTO agents_by_email (org_id, email, agent_id, cqlgen_claim) VALUES (?, ?, ?, ?) IF NOT EXISTS"
	handAgentNew = "INSERT INTO agents (org_id, agent_id, email, name, cqlgen_version) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS"
	handAgentGet = "SELECT email, cqlgen_version FROM agents WHERE org_id = ? AND agent_id = ?"
	handAgentSet = "UPDATE agents SET email = ?, cqlgen_version = ? WHERE org_id = ? AND agent_id = ? IF cqlgen_version = ?"
	handRelease  = "DELETE FROM agents_by_email WHERE org_id = ? AND email = ? IF agent_id = ?"
)

var errHandConflict = errors.New("hand-written claim: the email is taken")

func handAgentInsert(s *gocql.Session, a *helpdesk.Agent) error {
	ts := time.Now().UnixMicro()
	var org, email, owner string
	var claim int64
	applied, err := s.Query(handClaim, a.OrgID, a.Email, a.AgentID, ts).ScanCAS(&org, &email, &owner, &claim)
	if err != nil {
		return err
	}
	if !applied && owner != a.AgentID {
		return errHandConflict
	}
	_, err = s.Query(handAgentNew, a.OrgID, a.AgentID, a.Email, a.Name, ts).MapScanCAS(map[string]any{})
	return err
}

func handAgentChange(s *gocql.Session, a *helpdesk.Agent) error {
	var old string
	var version int64
	if err := s.Query(handAgentGet, a.OrgID, a.AgentID).Scan(&old, &version); err != nil {
		return err
	}
	ts := max(time.Now().UnixMicro(), version+1)
	applied, err := s.Query(handClaim, a.OrgID, a.Email, a.AgentID, ts).MapScanCAS(map[string]any{})
	if err != nil {
		return err
	}
	if !applied {
		return errHandConflict
	}
	if applied, err = s.Query(handAgentSet, a.Email, ts, a.OrgID, a.AgentID, version).MapScanCAS(map[string]any{}); err != nil {
		return err
	} else if !applied {
		return fmt.Errorf("hand-written claim: agent %s changed meanwhile", a.AgentID)
	}
	_, err = s.Query(handRelease, a.OrgID, old, a.AgentID).MapScanCAS(map[string]any{})
	return err
}

// claimImpls are a unique claim's peers: by hand and cqlgen. insert gives
// a new agent a new email; change gives an agent of the pool a new one.
func claimImpls(b *testing.B, p peers, op string) []benchenv.Impl {
	run := fmt.Sprintf("%d", time.Now().UnixNano())
	repo := helpdesk.NewAgentRepo(p.cq)
	pool := clusterPool()
	agent := func(prefix string, i, email int) *helpdesk.Agent {
		return &helpdesk.Agent{OrgID: "org-" + run, AgentID: fmt.Sprintf("%s-%d", prefix, i),
			Email: fmt.Sprintf("%s-%d-%d@example.test", prefix, i, email), Name: "agent"}
	}
	var impls []benchenv.Impl
	for _, name := range []string{"gocql-claim", "cqlgen"} {
		prefix := op + "-" + name
		insert := func(a *helpdesk.Agent) error { return handAgentInsert(p.s, a) }
		change := func(a *helpdesk.Agent) error { return handAgentChange(p.s, a) }
		if name == "cqlgen" {
			insert = func(a *helpdesk.Agent) error { return repo.Insert(ctx, a) }
			change = func(a *helpdesk.Agent) error { return repo.Update(ctx, a) }
		}
		if op == "change" {
			for i := range pool {
				if err := insert(agent(prefix, i, 0)); err != nil {
					b.Fatalf("preparing %s: %v", prefix, err)
				}
			}
		}
		impls = append(impls, benchenv.Impl{Name: name, Op: func(i int) error {
			if op == "insert" {
				return insert(agent(prefix, i, 0))
			}
			return change(agent(prefix, i%pool, i+1))
		}})
	}
	return impls
}

// fanoutImpls are the "3-table fan-out against one insert": a
// helpdesk Ticket inserted through the protocol (read, conditional write,
// a logged batch of its two other tables), the same with the Concurrent
// fan-out strategy (the two rows written at once, no batch log), the
// three rows in one plain logged batch by hand (no protocol), and one row
// of one table by hand, the floor; and the protocol's three steps, each
// alone: the read, the conditional write, the batch of two rows.
func fanoutImpls(p peers) []benchenv.Impl {
	logged := helpdesk.NewTicketRepo(p.cq)
	concurrent := helpdesk.NewTicketRepo(p.cq, cqlgen.WithStrategy(cqlgen.Concurrent(0)))
	ticket := func(i int) *helpdesk.Ticket {
		return &helpdesk.Ticket{OrgID: "acme", TicketID: gocql.TimeUUID(), Requester: fmt.Sprintf("user%d@acme.test", i%7),
			Subject: fmt.Sprint("ticket ", i), Status: helpdesk.StatusOpen, AgentID: fmt.Sprint("agent-", i%3),
			OpenedAt: time.Now().UTC().Truncate(time.Millisecond), Body: "body"}
	}
	const (
		insTicket    = "INSERT INTO tickets (org_id, ticket_id, requester, subject, status, agent_id, opened_at, body, replies) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
		insRequester = "INSERT INTO tickets_by_requester (org_id, requester, opened_at, ticket_id, subject, status) VALUES (?, ?, ?, ?, ?, ?)"
		insOpen      = "INSERT INTO open_tickets_by_agent (org_id, agent_id, opened_at, ticket_id, subject, status, requester) VALUES (?, ?, ?, ?, ?, ?, ?)"
	)
	const (
		readTicket = "SELECT cqlgen_version FROM tickets WHERE org_id = ? AND ticket_id = ?"
		casTicket  = "INSERT INTO tickets (org_id, ticket_id, requester, subject, status, agent_id, opened_at, body, replies) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS"
	)
	return []benchenv.Impl{
		{Name: "gocql-one-row", Op: func(i int) error {
			t := ticket(i)
			return p.s.Query(insRequester, t.OrgID, t.Requester, t.OpenedAt, t.TicketID, t.Subject, string(t.Status)).Exec()
		}},
		// The protocol's three steps alone, by hand: its read of the
		// canonical row (none there), its conditional write, its batch.
		{Name: "step-read", Op: func(i int) error {
			var v *int64
			err := p.s.Query(readTicket, "acme", gocql.TimeUUID()).Scan(&v)
			if errors.Is(err, gocql.ErrNotFound) {
				err = nil
			}
			return err
		}},
		{Name: "step-cas", Op: func(i int) error {
			t := ticket(i)
			_, err := p.s.Query(casTicket, t.OrgID, t.TicketID, t.Requester, t.Subject, string(t.Status), t.AgentID, t.OpenedAt, t.Body, t.Replies).MapScanCAS(map[string]any{})
			return err
		}},
		{Name: "step-batch", Op: func(i int) error {
			t := ticket(i)
			b := p.s.NewBatch(gocql.LoggedBatch)
			b.Query(insRequester, t.OrgID, t.Requester, t.OpenedAt, t.TicketID, t.Subject, string(t.Status))
			b.Query(insOpen, t.OrgID, t.AgentID, t.OpenedAt, t.TicketID, t.Subject, string(t.Status), t.Requester)
			return p.s.ExecuteBatch(b)
		}},
		{Name: "gocql-batch", Op: func(i int) error {
			t := ticket(i)
			b := p.s.NewBatch(gocql.LoggedBatch)
			b.Query(insTicket, t.OrgID, t.TicketID, t.Requester, t.Subject, string(t.Status), t.AgentID, t.OpenedAt, t.Body, t.Replies)
			b.Query(insRequester, t.OrgID, t.Requester, t.OpenedAt, t.TicketID, t.Subject, string(t.Status))
			b.Query(insOpen, t.OrgID, t.AgentID, t.OpenedAt, t.TicketID, t.Subject, string(t.Status), t.Requester)
			return p.s.ExecuteBatch(b)
		}},
		{Name: "cqlgen-logged", Op: func(i int) error { return logged.Insert(ctx, ticket(i)) }},
		{Name: "cqlgen-concurrent", Op: func(i int) error { return concurrent.Insert(ctx, ticket(i)) }},
	}
}

// modifyImpls are Modify's peers: the hand-written protocol's update of a
// Tally (read, conditional write on the version read, logged batch), the
// same change through cqlgen's Modify, and cqlgen's Get then Update.
func modifyImpls(b *testing.B, p peers) []benchenv.Impl {
	run := fmt.Sprintf("%d-", time.Now().UnixNano())
	repo := model.NewTallyRepo(p.cq)
	hand := handTally{p.s}
	pool := clusterPool()
	var impls []benchenv.Impl
	for _, name := range []string{"gocql-protocol", "cqlgen-modify", "cqlgen-get-update"} {
		prefix := "modify-" + name + "-" + run
		for i := range pool {
			t := tally(prefix, i)
			var err error
			if name == "gocql-protocol" {
				err = hand.write(&t, false)
			} else {
				err = repo.Insert(ctx, &t)
			}
			if err != nil {
				b.Fatalf("preparing %s: %v", prefix, err)
			}
		}
		var op func(i int) error
		switch name {
		case "gocql-protocol":
			op = func(i int) error {
				t := tally(prefix, i%pool)
				t.Points = int64(i)
				return hand.write(&t, false)
			}
		case "cqlgen-modify":
			op = func(i int) error {
				_, err := repo.Modify(ctx, tally(prefix, i%pool).TallyID, func(t *model.Tally) error { t.Points = int64(i); return nil })
				return err
			}
		default:
			op = func(i int) error {
				t, err := repo.Get(ctx, tally(prefix, i%pool).TallyID)
				if err != nil {
					return err
				}
				t.Points = int64(i)
				return repo.Update(ctx, t)
			}
		}
		impls = append(impls, benchenv.Impl{Name: name, Op: op})
	}
	return impls
}
