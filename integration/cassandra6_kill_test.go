package integration

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/txnmodel"
)

// A Cassandra 6 node killed with -9 (a crash: no stop marker in its
// Accord journal) comes back with cassandra.sh resume, and holds the
// transactional writes it acknowledged; kill returns only once the
// node no longer answers, so the resume starts it rather than finding
// the dead JVM's port (issue 35, D1 and D2; docs/cassandra6.md,
// "A node that crashed"). It needs the node make test-integration-c6
// manages, which it kills: with a node of one's own, it is skipped.
func TestCassandra6NodeComesBackAfterAKill(t *testing.T) {
	raw, s := txnSetup(t)
	script := filepath.Join(repoRoot, "integration", "cassandra", "cassandra.sh")
	run := func(arg string) (string, error) {
		out, err := exec.Command(script, arg).CombinedOutput()
		return string(out), err
	}
	if out, err := run("status"); err != nil {
		t.Skipf("no Cassandra 6 node managed by cassandra.sh here (%v): %s", err, out)
	}
	ctx := context.Background()
	repo := txnmodel.NewMemberRepo(s)
	before := &txnmodel.Member{MemberID: "k1", Team: "t", Name: "before the crash", Email: "k1@example.test"}
	must(t, repo.Insert(ctx, before))
	if out, err := run("kill"); err != nil {
		t.Fatalf("cassandra.sh kill: %v\n%s", err, out)
	}
	if out, err := run("resume"); err != nil {
		t.Fatalf("cassandra.sh resume after kill -9 (a 6.x node exits on a missing stop marker unless told otherwise): %v\n%s", err, out)
	}
	// The session reconnects on its own; give it the time to.
	var got *txnmodel.Member
	var err error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if got, err = repo.Get(ctx, "k1"); err == nil {
			break
		}
	}
	if err != nil || got.Name != before.Name {
		t.Fatalf("the write acknowledged before the crash, read after it: %+v, %v", got, err)
	}
	must(t, repo.Insert(ctx, &txnmodel.Member{MemberID: "k2", Team: "t", Name: "after", Email: "k2@example.test"}))
	checkRows(t, raw, map[string]txnmodel.Member{"k1": *before, "k2": {MemberID: "k2", Team: "t", Name: "after", Email: "k2@example.test"}})
	// The other sessions made before the kill (the keyspace's cleanup
	// drops it through one) reconnect within a few of their 1 s
	// ReconnectIntervals.
	time.Sleep(5 * time.Second)
}
