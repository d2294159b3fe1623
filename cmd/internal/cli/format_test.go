package cli

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/diag"
)

// records reads -format json's output: one JSON object a line, and
// nothing else.
func records(t *testing.T, stdout string) []diag.Record {
	t.Helper()
	var rs []diag.Record
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r diag.Record
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("stdout holds a line that is no diagnostic: %v\n%s", err, line)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestGenerateFormats: generate writes a model's diagnostics in each
// format: text on stderr, json and github on stdout; the exit code is the
// same in each, and nothing is written.
func TestGenerateFormats(t *testing.T) {
	dir := filepath.Join(repoRoot, "gen/testdata/golden/bad_field_name")
	t.Chdir(dir)
	t.Setenv("GITHUB_WORKSPACE", "")

	code, stdout, stderr := run(t, "generate", ".")
	if code != ExitModel || stdout != "" || !strings.Contains(stderr, "model.go:13:48: partition key: unknown column \"UserID\"; did you mean user_id (field UserID)? [unknown-column]\n") {
		t.Errorf("generate -format text (the default) = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code2, stdout2, stderr2 := run(t, "generate", "-format", "text", "."); code2 != code || stdout2 != stdout || stderr2 != stderr {
		t.Errorf("-format text differs from the default: %d\n%s%s", code2, stdout2, stderr2)
	}

	code, stdout, stderr = run(t, "generate", "-format", "json", ".")
	if code != ExitModel || strings.Contains(stderr, "[unknown-column]") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("generate -format json = %d\nstderr:\n%s", code, stderr)
	}
	rs := records(t, stdout)
	if len(rs) != 7 {
		t.Errorf("generate -format json wrote %d diagnostics, want the 7 of stderr.txt:\n%s", len(rs), stdout)
	}
	want := diag.Record{File: "model.go", Line: 13, Col: 48, EndLine: 13, EndCol: 54, Severity: "error", Code: "unknown-column",
		Message: `partition key: unknown column "UserID"; did you mean user_id (field UserID)?`, Suggestion: "user_id"}
	if len(rs) == 0 || rs[0] != want {
		t.Errorf("first record:\n got %+v\nwant %+v", rs, want)
	}

	code, stdout, stderr = run(t, "generate", "-format", "github", ".")
	wantLine := "::error file=model.go,line=13,col=48,endLine=13,endColumn=54,title=cqlgen unknown-column::partition key: unknown column \"UserID\"; did you mean user_id (field UserID)?\n"
	if code != ExitModel || !strings.HasPrefix(stdout, wantLine) || strings.Count(stdout, "::error ") != 7 || strings.Contains(stderr, "[unknown-column]") {
		t.Errorf("generate -format github = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// In a workflow, files are named from the workspace, the repository's
	// root, wherever cqlgen runs.
	t.Setenv("GITHUB_WORKSPACE", repoRoot)
	_, stdout, _ = run(t, "generate", "-format", "github", ".")
	if !strings.HasPrefix(stdout, "::error file=gen/testdata/golden/bad_field_name/model.go,line=13,col=48,") {
		t.Errorf("generate -format github under GITHUB_WORKSPACE:\n%s", stdout)
	}

	if code, _, stderr := run(t, "generate", "-format", "sarif", "."); code != ExitUsage || !strings.Contains(stderr, "want text, json or github") {
		t.Errorf("generate -format sarif = %d\n%s", code, stderr)
	}
}

// TestErrorsOnly: -errors-only leaves warnings out in every format and
// changes no exit code; under -strict, warnings are errors, and stay.
func TestErrorsOnly(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "")
	mixed := filepath.Join(repoRoot, "gen/testdata/golden/unknown_column")  // a warning and errors
	seeds := filepath.Join(repoRoot, "gen/testdata/golden/partition_seeds") // warnings alone
	for _, f := range diag.Formats {
		t.Chdir(mixed)
		code, stdout, stderr := run(t, "check", "-format", string(f), ".")
		if code != ExitModel || !strings.Contains(stdout+stderr, "growth-unknown") {
			t.Errorf("check -format %s = %d, want %d with the warning\n%s%s", f, code, ExitModel, stdout, stderr)
		}
		code, stdout, stderr = run(t, "check", "-errors-only", "-format", string(f), ".")
		if code != ExitModel || strings.Contains(stdout+stderr, "growth-unknown") || strings.Count(stdout+stderr, "unknown-column") != 5 {
			t.Errorf("check -errors-only -format %s = %d, want %d, the 5 unknown columns and no warning\n%s%s", f, code, ExitModel, stdout, stderr)
		}

		t.Chdir(seeds)
		code, stdout, stderr = run(t, "check", "-errors-only", "-format", string(f), ".")
		if code != ExitOK || stdout != "" || stderr != "" {
			t.Errorf("check -errors-only -format %s of warnings alone = %d, want 0 and no output\n%s%s", f, code, stdout, stderr)
		}
		code, stdout, stderr = run(t, "check", "-strict", "-errors-only", "-format", string(f), ".")
		if code != ExitModel || !strings.Contains(stdout+stderr, "large-partition") {
			t.Errorf("check -strict -errors-only -format %s = %d, want %d with the warnings that -strict makes errors\n%s%s", f, code, ExitModel, stdout, stderr)
		}
	}
}

// TestCheckAndDiffFormats: check's stale files and diff's schema changes
// are reported in each format, on the files concerned.
func TestCheckAndDiffFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages in a temporary module")
	}
	dir := userModule(t)
	t.Chdir(dir)
	t.Setenv("GITHUB_WORKSPACE", "")
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	music := filepath.Join(dir, "music/music.go")
	edit(t, music, "\tDurationS int32     `db:\"duration_s\"`\n}", "\tDurationS int32     `db:\"duration_s\"`\n\tDevice    string    `db:\"device\"`\n}")

	// check: each stale file is an error on that file.
	code, stdout, stderr := run(t, "check", "./...")
	if code != ExitStale || !strings.Contains(stderr, "cqlgen check: music/schema.cql is stale") || !strings.Contains(stdout, "+    device     text,") {
		t.Errorf("check -format text = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "check", "-format", "json", "./...")
	rs := records(t, stdout)
	stale := map[string]bool{}
	for _, r := range rs {
		if r.Code == "stale" && r.Severity == "error" && strings.Contains(r.Message, "is stale: run cqlgen generate") {
			stale[r.File] = true
		}
	}
	if code != ExitStale || !stale["music/schema.cql"] || !stale["music/cqlgen_gen.go"] || !strings.Contains(stderr, "+    device     text,") {
		t.Errorf("check -format json = %d: stale %v\nstdout:\n%s\nstderr:\n%s", code, stale, stdout, stderr)
	}
	code, stdout, _ = run(t, "check", "-q", "-format", "github", "./...")
	if code != ExitStale || !strings.Contains(stdout, "::error file=music/schema.cql,title=cqlgen stale::schema.cql is stale: run cqlgen generate (or go generate) and commit the result\n") {
		t.Errorf("check -format github = %d\n%s", code, stdout)
	}

	// diff: an additive change is a notice at its table.
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	schema := readFile(t, filepath.Join(dir, "music/schema.cql"))
	line := 1 + strings.Count(schema[:strings.Index(schema, "CREATE TABLE IF NOT EXISTS listening_history (")], "\n")
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "music")
	git(t, dir, "tag", "base")
	edit(t, music, "\tDevice    string    `db:\"device\"`\n}", "\tDevice    string    `db:\"device\"`\n\tVolume    int32     `db:\"volume\"`\n}")
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	code, stdout, stderr = run(t, "diff", "-base-rev", "base", "-format", "json", "./...")
	rs = records(t, stdout)
	want := diag.Record{File: "music/schema.cql", Line: line, Col: 1, Severity: "notice", Code: "additive-change",
		Message: "additive: table listening_history: new column volume int", Help: "ALTER TABLE listening_history ADD volume int;"}
	if code != ExitOK || len(rs) != 1 || rs[0] != want || !strings.Contains(stderr, "1 change(s) against schema.cql at base") {
		t.Errorf("diff -format json = %d:\n got %+v\nwant %+v\nstderr:\n%s", code, rs, want, stderr)
	}
	code, stdout, _ = run(t, "diff", "-base-rev", "base", "-format", "github", "./...")
	if code != ExitOK || !strings.Contains(stdout, "::notice file=music/schema.cql,line="+strconv.Itoa(line)+",col=1,title=cqlgen additive-change::additive: table listening_history: new column volume int%0AALTER TABLE listening_history ADD volume int;\n") ||
		!strings.Contains(stdout, "1 change(s) against schema.cql at base") {
		t.Errorf("diff -format github = %d\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "diff", "-base-rev", "base", "-format", "github", "-errors-only", "./..."); code != ExitOK || strings.Contains(stdout, "::notice") {
		t.Errorf("diff -format github -errors-only = %d\n%s", code, stdout)
	}

	// A breaking change is an error, with the way through as help: for a
	// source of truth, the runbook's new entity.
	edit(t, music, `ck:"played_at desc, track_id" ttl:"90d"`, `ck:"played_at asc, track_id" ttl:"90d"`)
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	code, stdout, _ = run(t, "diff", "-base-rev", "base", "-format", "json", "./...")
	var breaking *diag.Record
	for _, r := range records(t, stdout) {
		if r.Code == "breaking-change" {
			breaking = &r
		}
	}
	if code != ExitStale || breaking == nil || breaking.Severity != "error" || breaking.File != "music/schema.cql" || breaking.Line != line ||
		!strings.Contains(breaking.Message, "it is the source of truth of Play") || !strings.Contains(breaking.Help, "declare a new entity") {
		t.Errorf("diff -format json of a breaking change = %d: %+v\n%s", code, breaking, stdout)
	}
	code, stdout, _ = run(t, "diff", "-base-rev", "base", "-format", "github", "-errors-only", "./...")
	if code != ExitStale || !strings.Contains(stdout, "::error file=music/schema.cql,line="+strconv.Itoa(line)+",col=1,title=cqlgen breaking-change::breaking: table listening_history: clustering order") ||
		!strings.Contains(stdout, "%0A  the way through for Play's source of truth") || strings.Contains(stdout, "::notice") {
		t.Errorf("diff -format github of a breaking change = %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "diff", "-base-rev", "base", "./...")
	if code != ExitStale || strings.Contains(stdout, "::") || strings.Contains(stdout, `"severity"`) {
		t.Errorf("diff -format text (the default) = %d\n%s", code, stdout)
	}
}
