package diag

import (
	"bytes"
	"encoding/json"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

func sample(dir string) List {
	return List{
		{Pos: token.Position{Filename: filepath.Join(dir, "notes", "model.go"), Line: 7, Column: 38}, Severity: Error, Code: UnknownColumn,
			Msg: `pk: unknown column "UserID"; did you mean user_id (field UserID)?`, End: token.Position{Filename: filepath.Join(dir, "notes", "model.go"), Line: 7, Column: 44}, Suggestion: "user_id"},
		{Pos: token.Position{Filename: filepath.Join(dir, "notes", "model.go"), Line: 9, Column: 2}, Severity: Warning, Code: GrowthUnknown,
			Msg: "table notes: 100% of rows, list<text>\nsecond line\r"},
		{Pos: token.Position{Filename: filepath.Join(dir, "a,b:c%d.go")}, Severity: Notice, Code: AdditiveChange, Msg: "new table", Help: "1. expand\n2. backfill"},
	}
}

func TestWriteText(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := sample(dir).Write(&b, Text, dir, false); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("notes", "model.go") + `:7:38: pk: unknown column "UserID"; did you mean user_id (field UserID)? [unknown-column]` + "\n" +
		filepath.Join("notes", "model.go") + ":9:2: warning: table notes: 100% of rows, list<text>\nsecond line\r [growth-unknown]\n" +
		"a,b:c%d.go: notice: new table [additive-change]\n"
	if b.String() != want {
		t.Errorf("text:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := sample(dir).Write(&b, JSON, dir, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines (one object each), got %d:\n%s", len(lines), b.String())
	}
	want := []Record{
		{File: filepath.Join("notes", "model.go"), Line: 7, Col: 38, EndLine: 7, EndCol: 44, Severity: "error", Code: "unknown-column",
			Message: `pk: unknown column "UserID"; did you mean user_id (field UserID)?`, Suggestion: "user_id"},
		{File: filepath.Join("notes", "model.go"), Line: 9, Col: 2, Severity: "warning", Code: "growth-unknown", Message: "table notes: 100% of rows, list<text>\nsecond line\r"},
		{File: "a,b:c%d.go", Severity: "notice", Code: "additive-change", Message: "new table", Help: "1. expand\n2. backfill"},
	}
	for i, line := range lines {
		var got Record
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %d is no JSON object: %v\n%s", i+1, err, line)
		}
		if got != want[i] {
			t.Errorf("line %d = %+v, want %+v", i+1, got, want[i])
		}
	}
	// The field names are the documented interface; unknown positions
	// are left out rather than written as 0.
	if !strings.Contains(lines[0], `"file":"`) || !strings.Contains(lines[0], `"end_col":44`) || !strings.Contains(lines[0], `"suggestion":"user_id"`) {
		t.Errorf("first line lacks a documented field: %s", lines[0])
	}
	if strings.Contains(lines[2], `"line"`) || strings.Contains(lines[2], `"suggestion"`) {
		t.Errorf("a file-wide finding writes a line or an empty suggestion: %s", lines[2])
	}
	if !strings.Contains(lines[1], "list<text>") {
		t.Errorf("< and > are escaped: %s", lines[1])
	}
}

func TestWriteGitHub(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := sample(dir).Write(&b, GitHub, dir, false); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join("notes", "model.go")
	want := "::error file=" + model + ",line=7,col=38,endLine=7,endColumn=44,title=cqlgen unknown-column::pk: unknown column \"UserID\"; did you mean user_id (field UserID)?\n" +
		"::warning file=" + model + ",line=9,col=2,title=cqlgen growth-unknown::table notes: 100%25 of rows, list<text>%0Asecond line%0D\n" +
		"::notice file=a%2Cb%3Ac%25d.go,title=cqlgen additive-change::new table%0A1. expand%0A2. backfill\n"
	if b.String() != want {
		t.Errorf("github:\n%s\nwant\n%s", b.String(), want)
	}
}

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50%", "50%25", "50%25"},
		{"%0A", "%250A", "%250A"}, // an escape already in the text is not read as one
		{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
		{"a: b, c", "a: b, c", "a%3A b%2C c"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
	} {
		if got := EscapeData(c.in); got != c.data {
			t.Errorf("EscapeData(%q) = %q, want %q", c.in, got, c.data)
		}
		if got := EscapeProperty(c.in); got != c.prop {
			t.Errorf("EscapeProperty(%q) = %q, want %q", c.in, got, c.prop)
		}
	}
}

func TestWriteErrorsOnly(t *testing.T) {
	dir := t.TempDir()
	for _, f := range Formats {
		var b bytes.Buffer
		if err := sample(dir).Write(&b, f, dir, true); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), "\n"); n != 1 || !strings.Contains(b.String(), "unknown-column") {
			t.Errorf("%s, errors only:\n%s", f, b.String())
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"text", "json", "github"} {
		if f, err := ParseFormat(s); err != nil || string(f) != s {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("sarif"); err == nil || !strings.Contains(err.Error(), "text, json or github") {
		t.Errorf("ParseFormat(sarif) = %v", err)
	}
}
