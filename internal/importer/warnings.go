package importer

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// gcHintWindow is the gc_grace under which generate warns (gc-grace):
// Cassandra's default max_hint_window, 3 hours, as internal/validate has it.
const gcHintWindow = 3 * 3600

// The reasons the ignores of an import give: what the deployed table is,
// which the declaration states as it is. Each starts with "import:", so
// that grep -n import: finds them with the notes, and holds no ";", which
// separates ignores.
var ignoreReasons = map[diag.Code]string{
	diag.GrowthUnknown:  "import: deployed with no TTL and no size stated, give size:rows=N or rate=N/d or a ttl and drop this",
	diag.LowCardinality: "import: deployed with this partition key, which only a new table can spread (docs/runbook.md)",
	diag.GCGrace:        "import: deployed with this gc_grace, keep it above the time between repairs",
	diag.TableOption:    "import: deployed with this compaction",
	diag.OpenList:       "import: deployed as a non-frozen list, which Cassandra cannot freeze in place",
}

// silence gives each table of e the ignores of the warnings generate
// would raise over what the table is, as import declares it: a partition
// with clustering columns and neither TTL nor size hint (growth-unknown),
// a partition key of a boolean or a date alone (low-cardinality), a
// gc_grace under the hint window (gc-grace), TWCS without a TTL or with a
// window far from the TTL (table-option), and a non-frozen list<T> column
// (open-list, on every table that stores it). These rules are
// internal/validate's for what import writes, which declares no bucket,
// no size and no enum; TestRoundTripFiles checks that generate -strict
// passes on every schema it imports.
func (im *importer) silence(e *entity) []Ignore {
	var out []Ignore
	for _, t := range e.tables {
		var codes []diag.Code
		if len(t.t.Clustering) > 0 && t.t.TTL == 0 {
			codes = append(codes, diag.GrowthUnknown)
		}
		if pk := t.t.PartitionKey; len(pk) == 1 {
			if typ := t.cols[pk[0]].Type; typ == "boolean" || typ == "date" {
				codes = append(codes, diag.LowCardinality)
			}
		}
		if g := t.t.Options.GCGrace; g != schemadiff.DefaultGCGrace && g < gcHintWindow {
			codes = append(codes, diag.GCGrace)
		}
		if twcsWarns(t.t) {
			codes = append(codes, diag.TableOption)
		}
		if slices.ContainsFunc(t.names, func(c string) bool {
			n, err := parseType(t.cols[c].Type)
			return err == nil && n.name == "list"
		}) {
			codes = append(codes, diag.OpenList)
		}
		for _, c := range codes {
			t.ignores = append(t.ignores, string(c)+": "+ignoreReasons[c])
			out = append(out, Ignore{Table: t.t.Name, Code: string(c)})
		}
	}
	return out
}

// twcsWarns reports a TWCS table whose declaration generate warns of: one
// whose rows never expire, or whose window makes over 100 windows of its
// TTL, or is longer than it.
func twcsWarns(t *schemadiff.Table) bool {
	c, ok := compaction(t.Options.Compaction)
	if !ok || !strings.HasPrefix(c, "twcs") {
		return false
	}
	if t.TTL == 0 {
		return true
	}
	var w int64
	switch t.Options.Compaction.Options["compaction_window_unit"] {
	case "DAYS":
		w = 86400
	case "HOURS":
		w = 3600
	case "MINUTES":
		w = 60
	}
	n, _ := strconv.Atoi(t.Options.Compaction.Options["compaction_window_size"])
	w *= int64(n)
	return w > 0 && ((t.TTL+w-1)/w > 100 || w > t.TTL)
}
