package cluster_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// BenchmarkReplication compares one call at RF=1 (a keyspace on one node
// of the cluster) and at RF=3 (every node, QUORUM and SERIAL), on the same
// three-node cluster and the same client, one call at a time:
//
//   - insert: a Reply, one row in one table;
//   - get: a Ticket by key (QUORUM: two replicas answer);
//   - fanout: a Ticket insert, the write protocol's conditional write on
//     tickets and its rows in the two other tables.
//
// Besides ns/op it reports the median (p50-ns) and p99 of the calls.
func BenchmarkReplication(b *testing.B) {
	for _, rf := range []int{1, 3} {
		b.Run(fmt.Sprintf("rf=%d", rf), func(b *testing.B) {
			c := need(b)
			repl := c.dcs()
			if rf == 1 {
				dc := c.nodes[0].dc
				repl = map[string]int{dc: 1}
			}
			ks := c.keyspace(repl)
			raw := c.session(ks, nil)
			b.Cleanup(raw.Close)
			s := gocqlv1.NewSession(raw, &cqlgen.SessionOptions{ReadConsistency: cqlgen.Quorum, WriteConsistency: cqlgen.Quorum, SerialConsistency: cqlgen.Serial})
			tickets, replies := helpdesk.NewTicketRepo(s), helpdesk.NewReplyRepo(s)
			ctx := context.Background()
			var keys []*helpdesk.Ticket
			for i := range 200 {
				tk := ticket("acme", i)
				if err := tickets.Insert(ctx, tk); err != nil {
					b.Fatal(err)
				}
				keys = append(keys, tk)
			}
			b.Run("insert", func(b *testing.B) {
				latencies(b, func(i int) error {
					return replies.Insert(ctx, &helpdesk.Reply{OrgID: "acme", TicketID: keys[i%len(keys)].TicketID, Channel: "email",
						SentAt: time.Now(), ReplyID: gocql.TimeUUID(), Author: "agent-1", Body: "thanks"})
				})
			})
			b.Run("get", func(b *testing.B) {
				latencies(b, func(i int) error {
					tk := keys[i%len(keys)]
					_, err := tickets.Get(ctx, tk.OrgID, tk.TicketID)
					return err
				})
			})
			b.Run("fanout", func(b *testing.B) {
				latencies(b, func(i int) error { return tickets.Insert(ctx, ticket("acme", i)) })
			})
		})
	}
}

// latencies runs op b.N times, one at a time, and reports p50 and p99.
func latencies(b *testing.B, op func(i int) error) {
	b.ReportAllocs()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(ds[len(ds)*99/100].Nanoseconds()), "p99-ns")
}
