package gen_test

import (
	"path/filepath"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// cqlgenimpl.ReadPage binds every page statement the same way: the
// partition key values (the bucket, or the list of buckets, last), then
// the clustering values the statement names, in clustering order, then
// the From bound, then the To bound, then for a scatter the rows per
// bucket. The renderer decides the placeholders; this pins that every
// page statement it renders, for every golden case and example, has them
// in that order.
func TestPageStatementsBindInReadPageOrder(t *testing.T) {
	var dirs []string
	for _, c := range cases(t) {
		dirs = append(dirs, "./"+filepath.Join(goldenDir, c))
	}
	pkgs, _, _ := pipeline.Models(pipeline.Options{Patterns: append(dirs, "../example/...")})
	n := 0
	for _, p := range pkgs {
		for _, tb := range p.Tables() {
			if tb.Entity.Canonical == nil {
				continue
			}
			spec := tb.Spec()
			for _, s := range cqlspec.Render(spec) {
				switch s.Slot {
				case cqlspec.SlotFirst, cqlspec.SlotFirstFrom, cqlspec.SlotFirstTo, cqlspec.SlotFirstFromTo,
					cqlspec.SlotAfter, cqlspec.SlotAfterTo, cqlspec.SlotAtOrAfter, cqlspec.SlotAtOrAfterTo:
				default:
					continue
				}
				n++
				// 0: partition key, 1: clustering values, 2: From, 3: To, 4: per bucket.
				stage, pk := 0, 0
				for _, b := range s.Binds {
					next := -1
					switch {
					case pk < len(spec.PartitionKey) && (b.Kind == cqlspec.BindColumn || b.Kind == cqlspec.BindKeys) && b.Column == spec.PartitionKey[pk].Name:
						pk++
						next = 0
					case b.Kind == cqlspec.BindColumn:
						next = 1
					case b.Kind == cqlspec.BindFrom:
						next = 2
					case b.Kind == cqlspec.BindTo:
						next = 3
					case b.Kind == cqlspec.BindPerPartition:
						next = 4
					}
					if next < stage || next < 0 || (next > 0 && pk != len(spec.PartitionKey)) {
						t.Errorf("%s %s: binds out of ReadPage's order: %+v", tb.Name, s.Label(), s.Binds)
						break
					}
					stage = next
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("checked %d page statements; the cases did not load", n)
	}
}
