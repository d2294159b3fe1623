package cli

import (
	"bytes"
	"context"
	"errors"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// TestMaintainCommandLine: a misspelt subcommand or flag is a bad command
// line that says what was meant, before anything is loaded or built.
func TestMaintainCommandLine(t *testing.T) {
	t.Chdir(repoRoot)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"maintian", "verify"}, `unknown command "maintian"; did you mean maintain?`},
		{[]string{"maintain"}, "no subcommand: name one of verify, repair, backfill, adopt, status"},
		{[]string{"maintain", "verfy", "./example/music"}, `unknown subcommand "verfy"; did you mean verify? (there are verify, repair, backfill, adopt, status)`},
		{[]string{"maintain", "backfil"}, "did you mean backfill?"},
		{[]string{"maintain", "statsu"}, "did you mean status?"},
		{[]string{"maintain", "frobnicate"}, `unknown subcommand "frobnicate" (there are`},
		{[]string{"maintain", "-entity", "Track", "verify"}, "name the subcommand first"},
		{[]string{"maintain", "verify", "-entiy", "Track", "./example/music"}, "unknown flag -entiy; did you mean -entity?"},
		{[]string{"maintain", "repair", "./example/music", "-show-key"}, "unknown flag -show-key; did you mean -show-keys?"},
		{[]string{"maintain", "verify", "-keyspce", "k"}, "did you mean -keyspace?"},
		{[]string{"maintain", "backfill", "-rate", "fast"}, `invalid value "fast" for flag -rate: want a number, 0 or more`},
		{[]string{"maintain", "verify", "./example/music", "./example/helpdesk"}, "one package, not 2 (./example/music ./example/helpdesk)"},
		{[]string{"maintain", "verify", "-driver", "gocqlv3", "./example/music"}, `-driver "gocqlv3": want gocql (github.com/gocql/gocql) or gocqlv2`},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%s = %d, want %d and %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, ExitUsage, c.want, stdout, stderr)
		}
	}
	code, stdout, _ := run(t, "maintain", "-h")
	if code != ExitOK || !strings.Contains(stdout, "usage: cqlgen maintain verify|repair|backfill|adopt|status") || !strings.Contains(stdout, "-show-keys") || !strings.Contains(stdout, "-keyspace") {
		t.Errorf("maintain -h = %d\n%s", code, stdout)
	}
}

// TestMaintainNothingToMaintain: a package whose entities are each stored
// in one table has nothing to verify, which maintain says, naming them,
// for every subcommand (adopt and status included), before any build.
func TestMaintainNothingToMaintain(t *testing.T) {
	t.Chdir(repoRoot)
	for _, sub := range maintainCommands {
		code, stdout, stderr := run(t, "maintain", sub, "-job", "j", "./example/quickstart")
		if code != ExitUsage || stdout != "" ||
			!strings.Contains(stderr, "cqlgen maintain: ./example/quickstart has no entity stored in several tables: ") ||
			!strings.Contains(stderr, "(one table)") {
			t.Errorf("maintain %s ./example/quickstart = %d\n%s%s", sub, code, stdout, stderr)
		}
	}
	// -driver is generate's: music's fields are gocql v1's, so the model
	// has errors on v2, which maintain reports as generate would.
	code, _, stderr := run(t, "maintain", "verify", "-driver", "gocqlv2", "./example/music")
	if code != ExitModel || !strings.Contains(stderr, "but -driver gocqlv2 was given") || !strings.Contains(stderr, "cqlgen maintain: 1 error(s) in the model") {
		t.Errorf("maintain verify -driver gocqlv2 ./example/music = %d\n%s", code, stderr)
	}
	// A package with no entity at all.
	code, _, stderr = run(t, "maintain", "verify", "./internal/suggest")
	if code != ExitUsage || !strings.Contains(stderr, "./internal/suggest declares no entity") {
		t.Errorf("maintain verify on a package without entities = %d\n%s", code, stderr)
	}
	// Two packages with maintained entities: name one.
	code, _, stderr = run(t, "maintain", "verify", "./example/...")
	if code != ExitUsage || !strings.Contains(stderr, "names 3 packages with maintained entities (./example/helpdesk, ./example/messaging, ./example/music): name one") {
		t.Errorf("maintain verify ./example/... = %d\n%s", code, stderr)
	}
}

// TestMaintainStaleCode: maintain runs the generated code on disk, so a
// package that was never generated is a failure that says to generate,
// not a build error.
func TestMaintainStaleCode(t *testing.T) {
	if testing.Short() {
		t.Skip("makes a module")
	}
	dir := userModule(t)
	t.Chdir(dir)
	code, _, stderr := run(t, "maintain", "verify", "./music")
	if code != ExitFailure || !strings.Contains(stderr, "cqlgen maintain: music/cqlgen_gen.go is missing or stale: run go generate (or cqlgen generate) first") {
		t.Errorf("maintain verify before generate = %d\n%s", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "_cqlgen_maintain_*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestMaintainFlagsAreRuns: the flags maintain checks and passes on are
// the ones cqlmaintain.Run takes, for each subcommand Run knows.
func TestMaintainFlagsAreRuns(t *testing.T) {
	var ours []string
	for _, f := range maintainFlags {
		ours = append(ours, f.name)
	}
	slices.Sort(ours)
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	compared := 0
	for _, sub := range maintainCommands {
		var out, errs strings.Builder
		code := cqlmaintain.Run(context.Background(), []string{sub, "-h"}, &out, &errs)
		if strings.Contains(errs.String(), "unknown command") {
			// adopt and status, until this cqlmaintain has them.
			t.Logf("cqlmaintain.Run does not know %s yet", sub)
			continue
		}
		var theirs []string
		for _, m := range flagLine.FindAllStringSubmatch(errs.String(), -1) {
			theirs = append(theirs, m[1])
		}
		slices.Sort(theirs)
		if code != 2 || !slices.Equal(ours, theirs) {
			t.Errorf("%s: cqlmaintain.Run takes %v (exit %d), maintain passes on %v: update maintainFlags", sub, theirs, code, ours)
		}
		compared++
	}
	if compared < 3 {
		t.Errorf("compared the flags of %d subcommands, want verify, repair and backfill at least", compared)
	}
}

// TestMaintainSource: the program maintain builds makes the repositories
// of the entities whose generated code has Verify, Repair and Backfill
// (music's Track, ChartEntry and Release; not Play nor PlaylistTrack,
// stored in one table), on the adapter of the package's driver.
func TestMaintainSource(t *testing.T) {
	for _, c := range []struct {
		dir, pattern, adapter string
		repos, not            []string
	}{
		{repoRoot, "./example/music", "github.com/cqlgen/cqlgen/runtime/gocqlv1",
			[]string{"NewTrackRepo", "NewChartEntryRepo", "NewReleaseRepo"}, []string{"NewPlayRepo", "NewPlaylistTrackRepo"}},
		{filepath.Join(repoRoot, "gen/testdata/golden/udt_v2"), ".", "github.com/cqlgen/cqlgen/runtime/gocqlv2", nil, nil},
	} {
		res, err := pipeline.Generate(pipeline.Options{Dir: c.dir, Patterns: []string{c.pattern}})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Packages[0]
		src, adapter, err := maintainSource(p, "ks1")
		if err != nil {
			t.Fatal(err)
		}
		if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
			t.Errorf("%s: the program is not gofmt'd (%v):\n%s", c.pattern, err, src)
		}
		s := string(src)
		if adapter != c.adapter || !strings.Contains(s, "\tdriver \""+c.adapter+"\"\n") || !strings.Contains(s, "\tuser \""+p.Path+"\"\n") ||
			!strings.Contains(s, `cluster.Keyspace = "ks1"`) {
			t.Errorf("%s: adapter %s, want %s:\n%s", c.pattern, adapter, c.adapter, s)
		}
		for _, r := range c.repos {
			if !strings.Contains(s, "\t\tuser."+r+"(s),\n") {
				t.Errorf("%s: the program does not make %s:\n%s", c.pattern, r, s)
			}
		}
		for _, r := range c.not {
			if strings.Contains(s, r) {
				t.Errorf("%s: the program makes %s, which has no maintenance:\n%s", c.pattern, r, s)
			}
		}
	}
}

// TestRunPassing: a signal that reaches cqlgen while it runs the program
// is passed on to it, and cqlgen returns when it has stopped.
func TestRunPassing(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	stops := make(chan os.Signal, 1)
	cmd := exec.Command("sleep", "30")
	start := time.Now()
	stops <- syscall.SIGTERM
	err := runPassing(cmd, stops)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != -1 || time.Since(start) > 10*time.Second {
		t.Errorf("sleep 30, sent SIGTERM: %v after %v", err, time.Since(start))
	}
}
