package load

import (
	"go/token"
	"testing"
)

func TestParsePos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want token.Position
	}{
		{"a/b.go:12:7", token.Position{Filename: "a/b.go", Line: 12, Column: 7}},
		{"a/b.go:12", token.Position{Filename: "a/b.go", Line: 12}},
		{`C:\src\b.go:3:4`, token.Position{Filename: `C:\src\b.go`, Line: 3, Column: 4}},
		{`C:\src\b.go:3`, token.Position{Filename: `C:\src\b.go`, Line: 3}},
		{"", token.Position{}},
		{"-", token.Position{}},
	} {
		if got := parsePos(tc.in); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
