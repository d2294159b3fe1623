package diag

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// An OutputFormat is how a command writes its diagnostics.
type OutputFormat string

// The formats -format takes.
const (
	// Text is file:line:col: message [code], one a line, for people,
	// editors and logs.
	Text OutputFormat = "text"
	// JSON is one JSON object a line (JSON Lines), each a Record.
	JSON OutputFormat = "json"
	// GitHub is GitHub Actions workflow commands (::error file=...::...),
	// which the runner shows as annotations on the pull request's files.
	GitHub OutputFormat = "github"
)

// Formats lists the formats, for usage messages.
var Formats = []OutputFormat{Text, JSON, GitHub}

// ParseFormat reads a -format value.
func ParseFormat(s string) (OutputFormat, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: want text, json or github", s)
}

// A Record is the JSON form of a diagnostic: the shape of each line that
// -format json writes. Fields are stable; new ones may be added. Line,
// col and the end are 1-based, and absent when unknown (a finding about a
// whole file); end_col is the column just after the text concerned.
type Record struct {
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
	Col        int    `json:"col,omitempty"`
	EndLine    int    `json:"end_line,omitempty"`
	EndCol     int    `json:"end_col,omitempty"`
	Severity   string `json:"severity"` // error, warning or notice
	Code       Code   `json:"code,omitempty"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion,omitempty"` // replaces the text from line:col to end_line:end_col
	Help       string `json:"help,omitempty"`       // advice, of several lines
}

// Record returns d's JSON form, its file name relative to dir.
func (d Diagnostic) Record(dir string) Record {
	r := Record{
		Line: d.Pos.Line, Col: d.Pos.Column,
		Severity: d.Severity.String(), Code: d.Code, Message: d.Msg,
		Suggestion: d.Suggestion, Help: d.Help,
	}
	if d.Pos.Filename != "" {
		r.File = relative(dir, d.Pos.Filename)
	}
	if d.End.Line > 0 {
		r.EndLine, r.EndCol = d.End.Line, d.End.Column
	}
	return r
}

// GitHub returns d as one GitHub Actions workflow command: ::error,
// ::warning or ::notice, with the file relative to dir (the repository's
// root, where the runner resolves it), the position, and the code as the
// title; the message and help follow, escaped so that the command stays on
// one line.
func (d Diagnostic) GitHub(dir string) string {
	var props []string
	if d.Pos.Filename != "" {
		props = append(props, "file="+EscapeProperty(relative(dir, d.Pos.Filename)))
		if d.Pos.Line > 0 {
			props = append(props, "line="+strconv.Itoa(d.Pos.Line))
			if d.Pos.Column > 0 {
				props = append(props, "col="+strconv.Itoa(d.Pos.Column))
			}
		}
		if d.End.Line > 0 {
			props = append(props, "endLine="+strconv.Itoa(d.End.Line))
			if d.End.Column > 0 {
				props = append(props, "endColumn="+strconv.Itoa(d.End.Column))
			}
		}
	}
	title := "cqlgen"
	if d.Code != "" {
		title += " " + string(d.Code)
	}
	props = append(props, "title="+EscapeProperty(title))
	msg := d.Msg
	if d.Help != "" {
		msg += "\n" + d.Help
	}
	return "::" + d.Severity.String() + " " + strings.Join(props, ",") + "::" + EscapeData(msg)
}

// EscapeData escapes the message of a workflow command: the runner reads
// %25, %0D and %0A back as %, carriage return and line feed, and ends the
// command at a raw line break.
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a property's value of a workflow command: as
// EscapeData, and : and , too (%3A, %2C), which end a value.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Write writes l to w in format f, file names relative to dir. With
// errorsOnly, only errors are written.
func (l List) Write(w io.Writer, f OutputFormat, dir string, errorsOnly bool) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // list<text> stays readable
	for _, d := range l {
		if errorsOnly && d.Severity != Error {
			continue
		}
		switch f {
		case JSON:
			if err := enc.Encode(d.Record(dir)); err != nil { // with its newline
				return err
			}
			continue
		case GitHub:
			b.WriteString(d.GitHub(dir))
		default:
			b.WriteString(d.Format(dir))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
