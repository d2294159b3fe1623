// Package textdiff renders the difference between two texts as a unified
// diff, line by line, using Myers' O(ND) algorithm. It exists so that
// `cqlgen check` can show what is stale without a dependency.
package textdiff

import (
	"fmt"
	"strings"
)

// maxEdits bounds the search; beyond it the texts are shown as one
// replacement, which is what a reader would make of them anyway.
const maxEdits = 4000

type op struct {
	kind byte // ' ', '-' or '+'
	line string
}

// Unified returns a unified diff of old and new with three lines of
// context, or "" when they are equal. The names label the two sides.
func Unified(oldName, newName, old, new string) string {
	if old == new {
		return ""
	}
	ops := diff(splitLines(old), splitLines(new))
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before the first change to
		// context lines after the last change that is near enough.
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*context {
				break
			}
		}
		end = min(len(ops), end+context+1)
		oldLine, newLine := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				oldLine++
			}
			if o.kind != '-' {
				newLine++
			}
		}
		oldCount, newCount := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				oldCount++
			}
			if o.kind != '-' {
				newCount++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", rangeOf(oldLine, oldCount), rangeOf(newLine, newCount))
		for _, o := range ops[start:end] {
			b.WriteByte(o.kind)
			b.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return b.String()
}

func rangeOf(line, count int) string {
	if count == 0 {
		line-- // an empty range names the line before it
	}
	if count == 1 {
		return fmt.Sprint(line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}

// splitLines splits s after each newline, keeping the newlines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diff returns an edit script turning a into b.
func diff(a, b []string) []op {
	n, m := len(a), len(b)
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, d)
			}
		}
	}
	// Too many edits: everything old out, everything new in.
	ops := make([]op, 0, n+m)
	for _, l := range a {
		ops = append(ops, op{'-', l})
	}
	for _, l := range b {
		ops = append(ops, op{'+', l})
	}
	return ops
}

// backtrack walks the saved frontiers from the end to recover the script.
// trace[d] holds v[-d .. d+1] as it was before round d.
func backtrack(a, b []string, trace [][]int, dEnd int) []op {
	var rev []op
	x, y := len(a), len(b)
	get := func(d, k int) int { return trace[d][k+d] }
	for d := dEnd; d > 0; d-- {
		k := x - y
		var prevK int
		// trace[d] is the frontier after round d-1, which round d read.
		if k == -d || (k != d && get(d, k-1) < get(d, k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := get(d, prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, op{' ', a[x]})
		}
		if x == prevX {
			y--
			rev = append(rev, op{'+', b[y]})
		} else {
			x--
			rev = append(rev, op{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{' ', a[x]})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}
