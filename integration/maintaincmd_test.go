package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestMaintainFromUserModule runs go tool cqlgen maintain in a user's
// module, which has no maintenance program of its own: verify in step
// (exit 0), verify of a table missing a row (exit 1, the row counted),
// repair, and verify again; a misspelt entity, which cqlmaintain.Run
// answers; a package pattern after the flags and before them alike; and
// nothing left in the module afterwards.
func TestMaintainFromUserModule(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	dir := userModule(t, ks)
	env := []string{hostsEnv(t)}
	if out, code := goIn(t, dir, env, "tool", "cqlgen", "apply", "./music"); code != 0 {
		t.Fatalf("apply = %d\n%s", code, out)
	}
	// The user module's music is example/music's model: write through
	// the example's repositories into the same tables.
	ctx := context.Background()
	tracks := music.NewTrackRepo(gocqlv1.NewSession(raw, nil))
	const n = 25
	for i := range n {
		must(t, tracks.Insert(ctx, &music.Track{TrackID: fmt.Sprintf("t%02d", i), ArtistID: fmt.Sprintf("a%d", i%4), PlayCount: int64(i), TrackName: "song", DurationS: 200}))
	}
	maintain := func(args ...string) (string, int) {
		t.Helper()
		return goIn(t, dir, env, append([]string{"tool", "cqlgen", "maintain"}, args...)...)
	}
	start := time.Now()
	out, code := maintain("verify", "./music")
	t.Logf("the first maintain verify, its program built in a new module: %v", time.Since(start))
	if code != 0 || !strings.Contains(out, fmt.Sprintf("verify Track: read %d rows of tracks (its source of truth)", n)) ||
		!regexp.MustCompile(fmt.Sprintf(`top_tracks_by_artist +should hold %d rows, holds %d; 0 missing, 0 stale, 0 orphans`, n, n)).MatchString(out) ||
		!strings.Contains(out, "verify ChartEntry:") {
		t.Fatalf("maintain verify in step = %d\n%s", code, out)
	}
	must(t, raw.Query("DELETE FROM top_tracks_by_artist WHERE artist_id = 'a1' AND play_count = 5 AND track_id = 't05'").Exec())
	start = time.Now()
	out, code = maintain("verify", "./music", "-entity", "Track", "-show-keys")
	t.Logf("maintain verify again: %v", time.Since(start))
	if code != 1 || !strings.Contains(out, fmt.Sprintf("should hold %d rows, holds %d; 1 missing", n, n-1)) ||
		!strings.Contains(out, "missing: artist_id=a1 ") || strings.Contains(out, "ChartEntry") {
		t.Fatalf("maintain verify with a row missing = %d\n%s", code, out)
	}
	out, code = maintain("repair", "-entity", "Track", "-rate", "1000", "./music")
	if code != 0 || !strings.Contains(out, "repair wrote 1 missing or stale, deleted 0 orphans") {
		t.Fatalf("maintain repair = %d\n%s", code, out)
	}
	if out, code = maintain("verify", "-table", "top_tracks_by_artist", "./music"); code != 0 || !strings.Contains(out, "0 missing") {
		t.Errorf("maintain verify after repair = %d\n%s", code, out)
	}
	// cqlmaintain.Run's own checks reach the user unchanged.
	if out, code = maintain("verify", "-entity", "Trak", "./music"); code != 2 || !strings.Contains(out, `no entity "Trak"; did you mean Track?`) {
		t.Errorf("maintain verify -entity Trak = %d\n%s", code, out)
	}
	// A keyspace that does not exist is said so, before any build.
	if out, code = maintain("verify", "-keyspace", ks+"_none", "./music"); code != 4 || !strings.Contains(out, "keyspace "+ks+"_none does not exist") {
		t.Errorf("maintain verify in a missing keyspace = %d\n%s", code, out)
	}
	left, err := filepath.Glob(filepath.Join(dir, "_cqlgen_maintain_*"))
	must(t, err)
	if len(left) > 0 {
		t.Errorf("maintain left %v in the module", left)
	}
	// Without CASSANDRA_HOSTS: the CLI's own message, exit 4.
	out, code = goIn(t, dir, []string{"CASSANDRA_HOSTS="}, "tool", "cqlgen", "maintain", "verify", "./music")
	if code != 4 || !strings.Contains(out, "CASSANDRA_HOSTS is not set") {
		t.Errorf("maintain verify without CASSANDRA_HOSTS = %d\n%s", code, out)
	}
}

// TestMaintainV2Driver: for a package on the ASF driver, maintain builds
// its program on runtime/gocqlv2 (the module requires it), with the same
// CASSANDRA_* variables, in the keyspace -keyspace names (the package
// declares none): an orphan made by hand is found, exit 1.
func TestMaintainV2Driver(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQLFile(t, raw, "v2model/schema.cql")
	env := []string{hostsEnv(t)}
	cqlgen := []string{"run", "github.com/cqlgen/cqlgen/cmd/cqlgen", "maintain"}
	out, _ := goIn(t, ".", env, append(cqlgen, "verify", "-keyspace", ks, "./v2model")...)
	if !strings.Contains(out, "verify Ticket: read 0 rows of tickets") || !strings.Contains(out, "verify Event: read 0 rows of events") {
		t.Fatalf("maintain verify on v2model:\n%s", out)
	}
	must(t, raw.Query("INSERT INTO tickets_by_owner (owner, ticket_id, queue, subject) VALUES ('ann', uuid(), 'q', 'lost')").Exec())
	cmd := exec.Command("go", append(cqlgen, "verify", "-table", "tickets_by_owner", "-keyspace", ks, "./v2model")...)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !regexp.MustCompile(`tickets_by_owner +should hold 0 rows, holds 1; 0 missing, 0 stale, 1 orphans`).Match(b) {
		t.Errorf("maintain verify with an orphan = %v\n%s", err, b)
	}
	if left, _ := filepath.Glob("_cqlgen_maintain_*"); len(left) > 0 {
		t.Errorf("maintain left %v in the module", left)
	}
}
