// Package suggest finds the likely intended word behind a typo, for
// "did you mean" hints in diagnostics.
package suggest

// Closest returns the candidate nearest to s by edit distance, when it is
// near enough (at most two edits) to be a likely typo, else "".
func Closest(s string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := distance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, over bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
