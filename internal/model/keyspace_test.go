package model

import "testing"

func TestParseReplication(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{'class': 'SimpleStrategy', 'replication_factor': 1}", "{'class': 'SimpleStrategy', 'replication_factor': 1}"},
		{"{ 'class' : 'NetworkTopologyStrategy' , 'dc1':3,'dc-2': '2' }", "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc-2': '2'}"},
	} {
		got, err := parseReplication(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		"{'class': 'SimpleStrategy', 'replication_factor': 1}; DROP KEYSPACE prod; {'a': 'b'}",
		"{'class': 'SimpleStrategy', 'replication_factor': 1} -- comment",
		"{'class': 'SimpleStrategy', 'replication_factor': '1; DROP TABLE x'}",
		"{'class': 'Evil', 'replication_factor': 1}",
		"{'replication_factor': 1}",
		"{'class': 'SimpleStrategy', 'class': 'SimpleStrategy'}",
		"{'class': 'SimpleStrategy' 'replication_factor': 1}",
		"{'class': 'SimpleStrategy', 'replication_factor': 1",
		"{'class': 'SimpleStrategy', 'replication_factor': 99999}",
		"{'cl''ass': 'SimpleStrategy'}",
		"",
	} {
		if got, err := parseReplication(bad); err == nil {
			t.Errorf("%s: accepted as %q", bad, got)
		}
	}
}
