package main

import (
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	readme := "# B\n\nintro\n" + beginMarker + "\nold 1\nold 2\n" + endMarker + " -->\n\nafter\n"
	got, err := splice([]byte(readme), []byte("#### new\n\n| a |\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# B\n\nintro\n" + beginMarker + "\n#### new\n\n| a |\n" + endMarker + " -->\n\nafter\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Run again, it gives the same file: the markers stay.
	again, err := splice(got, []byte("#### new\n\n| a |\n"))
	if err != nil || string(again) != want {
		t.Errorf("second splice: %q, %v", again, err)
	}
	if _, err := splice([]byte(strings.ReplaceAll(readme, beginMarker, "")), nil); err == nil {
		t.Error("a README without markers was accepted")
	}
}
