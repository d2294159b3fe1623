package validate

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// Silenceable are the codes a table may silence with ignore:"code: reason".
var Silenceable = []diag.Code{diag.GrowthUnknown, diag.UnboundedPartition, diag.LargePartition, diag.LowCardinality, diag.ConstantPartition, diag.HotPartition, diag.TenantKey, diag.TableOption, diag.GCGrace, diag.OpenList}

// warn reports a partition warning unless the table silences its code.
func (c *checker) warn(t *model.Table, pos token.Position, code diag.Code, format string, args ...any) {
	if Silenced(t, code) == nil {
		c.diags.Warnf(pos, code, format, args...)
	}
}

// Silenced returns the ignore by which t silences code, or nil.
func Silenced(t *model.Table, code diag.Code) *model.Ignore {
	for i, ig := range t.Ignores {
		if diag.Code(ig.Code) == code {
			return &t.Ignores[i]
		}
	}
	return nil
}

// Partition returns what the partition checks find in t, silenced or not:
// the review page shows each table's verdict from it.
func Partition(t *model.Table) diag.List {
	c := &checker{}
	c.partitionChecks(t, func(pos token.Position, code diag.Code, format string, args ...any) {
		c.diags.Warnf(pos, code, format, args...)
	})
	return c.diags
}

// ignores checks that a table silences only warnings, by known codes.
func (c *checker) ignores(t *model.Table) {
	for _, ig := range t.Ignores {
		if !slices.Contains(Silenceable, diag.Code(ig.Code)) {
			var codes []string
			for _, s := range Silenceable {
				codes = append(codes, string(s))
			}
			c.diags.Errorf(ig.Pos, diag.BadValue, "ignore: %q cannot be silenced; a table can silence only %s", ig.Code, strings.Join(codes, ", "))
		}
	}
}

// partition checks step 4 of the method: that every partition is bounded,
// below the size limits, and spread over many values.
func (c *checker) partition(t *model.Table) {
	c.ignores(t)
	c.partitionChecks(t, func(pos token.Position, code diag.Code, format string, args ...any) {
		c.warn(t, pos, code, format, args...)
	})
}

type warnFunc func(pos token.Position, code diag.Code, format string, args ...any)

func (c *checker) partitionChecks(t *model.Table, warn warnFunc) {
	e := t.Estimate()
	switch {
	case e.Unbounded:
		warn(t.Pos, diag.UnboundedPartition, "table %s: a partition grows without bound (%s); bound it with %s", t.Name, e.Basis, timeFix(t))
	case !e.Known && t.TTL == 0 && t.Bucket == nil:
		warn(t.Pos, diag.GrowthUnknown, "table %s: nothing bounds a partition's growth (no TTL, no bucket, no size hint); state it with size:\"rows=N\" or size:\"rate=N/d\", or bound it with a ttl or %s", t.Name, timeFix(t))
	case e.Known && e.Values > model.MaxCells:
		c.diags.Errorf(t.Pos, diag.TooManyCells, "table %s: a partition would hold about %s cells (%s), over Cassandra's limit of 2 billion; %s", t.Name, model.HumanCount(e.Values), e.Basis, splitFix(t, e))
	case e.Known && e.Bytes > e.LimitBytes:
		warn(t.Pos, diag.LargePartition, "table %s: a partition would hold about %s (%s rows, %s), over the %s limit; %s", t.Name, model.HumanBytes(e.Bytes), model.HumanCount(e.Rows), e.Basis, model.HumanBytes(e.LimitBytes), splitFix(t, e))
	case e.Known && !e.RowBytesGiven && e.Rows > e.LimitRows:
		warn(t.Pos, diag.LargePartition, "table %s: a partition would hold about %s rows (%s), over the %s-row limit; %s (or give the row size with rowbytes=N, and the byte limit decides)", t.Name, model.HumanCount(e.Rows), e.Basis, model.HumanCount(e.LimitRows), splitFix(t, e))
	}
	c.cardinality(t, warn)
	c.hot(t, e, warn)
}

// HotWritesPerSecond is the write rate into one partition above which a
// table whose partition key is a time bucket alone is flagged: every
// write of a period goes to one partition, on one set of replicas, while
// the rest of the cluster takes none of them.
const HotWritesPerSecond = 1000

// hot checks a table whose time bucket is its whole partition key: every
// write of the system goes to the partition of the current period. The
// size checks above bound the partition from the rate (rate × bucket
// width); this one says what the rate does to the replicas.
func (c *checker) hot(t *model.Table, e model.Estimate, warn warnFunc) {
	if !t.BucketOnly() {
		return
	}
	b := t.Bucket
	name := b.Kind.Descriptor().Name
	z := t.Size
	if z == nil || z.Rate == 0 {
		warn(t.Pos, diag.HotPartition, "table %s: its partition key is the %s bucket alone, so every write of the whole system goes to one partition a %s, on one set of replicas; state the write rate with size:\"rate=N/d\" so cqlgen can check the partition's size and load", t.Name, b.Expr(), period(b))
		return
	}
	perSecond := float64(z.Rate) / float64(z.RatePer)
	if perSecond <= HotWritesPerSecond {
		return
	}
	warn(z.Pos, diag.HotPartition, "table %s: its partition key is the %s bucket alone, so all %s writes a second go to one partition, on one set of replicas, for a whole %s (%s rows); over %s writes a second to one partition, put a column that spreads the writes first in pk (a source, a region), read one value at a time", t.Name, name, model.HumanCount(int64(perSecond+0.5)), period(b), model.HumanCount(e.Rows), model.HumanCount(HotWritesPerSecond))
}

// bucketOnlyFix suggests how to split the partitions of a table keyed by
// a time bucket alone, which takes one bucket at most: an hour bucket when
// the bucket is wider and the rate is known, and in any case a partition
// key column before the bucket.
func bucketOnlyFix(t *model.Table, e model.Estimate) string {
	spread := "put a column that spreads the rows first in pk (a source, a region)"
	b := t.Bucket
	z := t.Size
	if b.Kind == model.HourBucket || z == nil || z.Rate == 0 {
		return spread
	}
	rows := (z.Rate*3600 + z.RatePer - 1) / z.RatePer
	return fmt.Sprintf("narrow the bucket to bucket:\"hour(%s)\", about %s rows a partition, or %s", b.Source.Name, model.HumanCount(rows), spread)
}

// period words a time bucket's width: day, hour, 7-day range.
func period(b *model.Bucket) string {
	if b.Kind == model.DaysBucket {
		return fmt.Sprintf("%d-day range", b.N)
	}
	return b.Kind.Descriptor().Name
}

// cardinality warns about a partition key with few possible values: every
// write of a value lands on the same few replicas.
func (c *checker) cardinality(t *model.Table, warn warnFunc) {
	if len(t.PK) != 1 || t.PK[0].Field == nil || t.PK[0].Field.Type == nil {
		return
	}
	if t.Bucket != nil && t.Bucket.Kind == model.HashBucket {
		return // the hash bucket spreads each value over N partitions
	}
	f := t.PK[0].Field
	pos := t.PK[0].Pos
	fix := hashFix(t)
	// With a time bucket, the count holds per bucket: the table has that
	// many partitions for each period, and every write of a period goes to
	// them.
	scope, whole := "the table has", "the whole table is one partition"
	if t.Bucket != nil {
		scope = fmt.Sprintf("each %s bucket has", t.Bucket.Kind.Descriptor().Name)
		whole = fmt.Sprintf("each %s bucket is one partition, which takes every write of its period,", t.Bucket.Kind.Descriptor().Name)
	}
	switch {
	case f.Constants == 1:
		warn(pos, diag.ConstantPartition, "table %s: the partition key %s has a single declared value, so %s on one set of replicas; %s", t.Name, f.Column, whole, fix)
	case f.Type.Name == "boolean":
		warn(pos, diag.LowCardinality, "table %s: the partition key %s is a boolean, so %s two partitions; %s", t.Name, f.Column, scope, fix)
	case f.Constants > 1 && f.Constants <= 32:
		warn(pos, diag.LowCardinality, "table %s: the partition key %s is an enum of %d declared values, so %s at most %d partitions; %s", t.Name, f.Column, f.Constants, scope, f.Constants, fix)
	case f.Type.Name == "date":
		warn(pos, diag.LowCardinality, "table %s: the partition key %s is a date alone, so each day's writes all go to one partition; %s", t.Name, f.Column, fix)
	}
}

// hashColumn is the column to hash for a bucket: the last clustering
// column (the one that makes rows unique), else a non-key column.
func hashColumn(t *model.Table) string {
	if len(t.CK) > 0 {
		return t.CK[len(t.CK)-1].Name
	}
	for _, col := range t.Columns {
		if col.Kind == model.Regular && col.Field != nil {
			return col.Name
		}
	}
	return "col"
}

func hashFix(t *model.Table) string {
	return fmt.Sprintf("spread it with bucket:\"hash(%s) %% 16\"", hashColumn(t))
}

// timeColumn is the first clustering column that holds a time, if any.
func timeColumn(t *model.Table) string {
	for _, r := range t.CK {
		if r.Field != nil && r.Field.Type != nil && (r.Field.Type.Name == "timestamp" || r.Field.Type.Name == "timeuuid") {
			return r.Name
		}
	}
	return ""
}

func timeFix(t *model.Table) string {
	if col := timeColumn(t); col != "" {
		return fmt.Sprintf("a time bucket such as bucket:\"month(%s)\"", col)
	}
	return "a time bucket on a timestamp column, bucket:\"month(col)\""
}

// splitFix suggests the bucket that brings a partition to about half its
// limit: a time bucket for a time series, else a hash bucket.
func splitFix(t *model.Table, e model.Estimate) string {
	if t.BucketOnly() {
		return bucketOnlyFix(t, e)
	}
	if col := timeColumn(t); col != "" && (t.Bucket == nil || !t.Bucket.Kind.IsTime()) {
		return fmt.Sprintf("split it with %s, or a narrower one", timeFixFor(col))
	}
	// Aim at half the limit, leaving room to grow.
	n := ceil(e.RowsBytes, e.LimitBytes/2)
	if !e.RowBytesGiven || e.Values > model.MaxCells {
		n = max(n, ceil(e.Rows, e.LimitRows/2))
	}
	if b := t.Bucket; b != nil && b.Kind == model.HashBucket {
		n *= b.N
	}
	after := e
	after.Rows = ceil(e.Rows*bucketsOf(t), n)
	return fmt.Sprintf("split it with bucket:\"hash(%s) %% %d\", about %s rows a partition", hashColumn(t), n, model.HumanCount(after.Rows))
}

func timeFixFor(col string) string { return fmt.Sprintf("bucket:\"day(%s)\"", col) }

func bucketsOf(t *model.Table) int64 {
	if b := t.Bucket; b != nil && b.Kind == model.HashBucket {
		return b.N
	}
	return 1
}

func ceil(a, b int64) int64 { return (a + b - 1) / b }

// Verdicts returns each table's partition verdicts: everything the
// partition checks find, silenced or not. Validation hands it to the review
// page, which shows it beside the table's estimate.
func Verdicts(p *model.Package) map[*model.Table][]model.Verdict {
	out := map[*model.Table][]model.Verdict{}
	for _, t := range p.Tables() {
		for _, d := range Partition(t) {
			v := model.Verdict{Code: string(d.Code), Error: d.Severity == diag.Error}
			if ig := Silenced(t, d.Code); ig != nil {
				v.Silenced = ig.Reason
			}
			out[t] = append(out[t], v)
		}
	}
	return out
}
