package textdiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n"
	got := Unified("old", "new", old, new)
	want := `--- old
+++ new
@@ -1,10 +1,11 @@
 a
 b
 c
-d
+D
 e
 f
 g
 h
 i
 j
+k
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Unified("a", "b", "x\n", "x\n") != "" {
		t.Error("equal texts give a diff")
	}
}

// TestApplyRoundTrip checks on random texts that the script turns old
// into new, by replaying it.
func TestApplyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		a := randomLines(r)
		b := randomLines(r)
		ops := diff(a, b)
		var gotA, gotB []string
		for _, o := range ops {
			if o.kind != '+' {
				gotA = append(gotA, o.line)
			}
			if o.kind != '-' {
				gotB = append(gotB, o.line)
			}
		}
		if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
			t.Fatalf("script does not replay:\na=%q\nb=%q\nops=%v", a, b, ops)
		}
	}
}

func randomLines(r *rand.Rand) []string {
	n := r.IntN(12)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = string(rune('a'+r.IntN(4))) + "\n"
	}
	return lines
}
