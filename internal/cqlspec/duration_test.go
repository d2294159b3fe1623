package cqlspec

import "testing"

func TestHumanDuration(t *testing.T) {
	for _, c := range []struct {
		secs int64
		want string
	}{
		{90 * 86400, "90 days"},
		{86400, "1 day"},
		{12 * 3600, "12 hours"}, // helpdesk's agent_sessions: not "0 days"
		{36 * 3600, "36 hours"},
		{3600, "1 hour"},
		{90 * 60, "90 minutes"},
		{61, "61 seconds"},
		{1, "1 second"},
	} {
		if got := HumanDuration(c.secs); got != c.want {
			t.Errorf("HumanDuration(%d) = %q, want %q", c.secs, got, c.want)
		}
	}
}
