package model

// Estimate is the expected size of one partition of a table, worked out
// from the model and its size hints: step 4 of the query-first method.
type Estimate struct {
	Rows      int64  // rows per partition; meaningful when Known
	Known     bool   // the hints (and TTL or bucket) give a row count
	Unbounded bool   // rows keep coming and nothing bounds them
	Basis     string // how Rows was derived, in words
	Bytes     int64  // estimated bytes per partition
	RowsBytes int64  // the part of Bytes that grows with the rows
	Values    int64  // Nv = Nr·(Nc − Npk − Ns) + Ns: cells per partition
	// RowBytesGiven: Bytes rests on a measured row size, so the byte limit
	// decides, not the row count.
	RowBytesGiven bool
	LimitRows     int64
	LimitBytes    int64
}

// The thresholds of a partition, unless a table's size hint sets its own.
const (
	DefaultLimitRows  = 100_000
	DefaultLimitBytes = 100_000_000   // 100 MB, decimal like the k, M and G of size hints
	MaxCells          = 2_000_000_000 // Cassandra's hard limit of cells in a partition
)

// typeBytes is the size of a value of a CQL type; variable-width types
// count a typical size, which a rowbytes hint overrides.
func typeBytes(t *Type) int64 {
	if t == nil {
		return 16 // a type that failed to map; its error is reported elsewhere
	}
	if t.UDT != nil {
		var n int64
		for _, f := range t.UDT.Fields {
			n += 4 + typeBytes(f.Type) // each field's length, then its value
		}
		return n
	}
	switch t.Name {
	case "boolean", "tinyint":
		return 1
	case "smallint":
		return 2
	case "int", "float", "date":
		return 4
	case "bigint", "double", "timestamp", "counter", "time":
		return 8
	case "duration":
		return 12
	case "uuid", "timeuuid", "inet", "varint", "decimal", "text", "varchar", "ascii":
		return 16
	}
	return 64 // blob and collections
}

// Estimate works out the expected size of one partition of t.
func (t *Table) Estimate() Estimate {
	e := Estimate{LimitRows: DefaultLimitRows, LimitBytes: DefaultLimitBytes}
	z := t.Size
	if z != nil {
		if z.LimitRows > 0 {
			e.LimitRows = z.LimitRows
		}
		if z.LimitBytes > 0 {
			e.LimitBytes = z.LimitBytes
		}
	}
	switch {
	case len(t.CK) == 0:
		e.Rows, e.Known, e.Basis = 1, true, "one row per partition: no clustering columns"
	case z != nil && z.Rows > 0:
		e.Rows, e.Known, e.Basis = z.Rows, true, "rows="+count(z.Rows)
	case z != nil && z.Keys > 0:
		e.Rows, e.Known, e.Basis = ceilDiv(z.Total, z.Keys), true, count(z.Total)+" rows over "+count(z.Keys)+" keys"
	case z != nil && z.Rate > 0:
		window, what := int64(0), ""
		if t.TTL > 0 {
			window, what = t.TTL, "TTL"
		}
		if b := t.Bucket; b != nil && b.Kind.IsTime() && (window == 0 || b.BucketSeconds() < window) {
			window, what = b.BucketSeconds(), b.Expr()+" bucket"
		}
		if window == 0 {
			e.Unbounded, e.Basis = true, "rate "+count(z.Rate)+" per "+per(z.RatePer)+" with no TTL and no time bucket"
			break
		}
		e.Rows, e.Known = ceilDiv(z.Rate*window, z.RatePer), true
		e.Basis = count(z.Rate) + " per " + per(z.RatePer) + " × " + seconds(window) + " " + what
	}
	if !e.Known {
		return e
	}
	if b := t.Bucket; b != nil && b.Kind == HashBucket && b.N > 1 {
		e.Rows = ceilDiv(e.Rows, b.N)
		e.Basis += " ÷ " + itoa(b.N) + " hash buckets"
	}
	var fixed, perRow, regular, statics int64
	for _, c := range t.Columns {
		size := typeBytes(c.Type)
		switch c.Kind {
		case PartitionKey:
			fixed += size
		case Static:
			fixed += size + 8
			statics++
		case Clustering:
			perRow += size
		default:
			perRow += size + 8 // each regular cell carries its write timestamp
			regular++
		}
	}
	if z != nil && z.RowBytes > 0 {
		perRow, e.RowBytesGiven = z.RowBytes, true
	}
	e.RowsBytes = e.Rows * perRow
	e.Bytes = fixed + e.RowsBytes
	e.Values = e.Rows*regular + statics
	return e
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func per(secs int64) string {
	switch secs {
	case 1:
		return "second"
	case 60:
		return "minute"
	case 3600:
		return "hour"
	case 86400:
		return "day"
	}
	return "week"
}

func seconds(s int64) string {
	switch {
	case s == 86400:
		return "1 day"
	case s%86400 == 0:
		return itoa(s/86400) + " days"
	case s == 3600:
		return "1 hour"
	case s%3600 == 0:
		return itoa(s/3600) + " hours"
	}
	return itoa(s) + " seconds"
}

// count writes n with a k, M or G suffix when it divides evenly.
func count(n int64) string {
	switch {
	case n >= 1e9 && n%1e9 == 0:
		return itoa(n/1e9) + "G"
	case n >= 1e6 && n%1e6 == 0:
		return itoa(n/1e6) + "M"
	case n >= 1e3 && n%1e3 == 0:
		return itoa(n/1e3) + "k"
	}
	return itoa(n)
}

// HumanBytes writes a byte count as a person reads it, in decimal units
// like the size hints: 50 MB, 5 GB, 1.3 kB.
func HumanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return itoa(n) + " B"
	}
	units := []string{"kB", "MB", "GB", "TB", "PB"}
	f := float64(n) / unit
	i := 0
	for f >= unit && i < len(units)-1 {
		f /= unit
		i++
	}
	if f >= 10 {
		return itoa(int64(f+0.5)) + " " + units[i]
	}
	return trimZero(f) + " " + units[i]
}

func trimZero(f float64) string {
	whole := int64(f)
	tenth := int64((f-float64(whole))*10 + 0.5)
	if tenth == 10 {
		whole, tenth = whole+1, 0
	}
	if tenth == 0 {
		return itoa(whole)
	}
	return itoa(whole) + "." + itoa(tenth)
}

// HumanCount writes a count as a person reads it: 10,800; 1,000,000.
func HumanCount(n int64) string {
	s := itoa(n)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Verdict is one finding of a table's partition checks, for the review
// page.
type Verdict struct {
	Code     string // the diagnostic code
	Error    bool   // an error, not a warning
	Silenced string // the reason an ignore gives, when silenced
}
