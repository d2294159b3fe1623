package tag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cqlgen/cqlgen/internal/suggest"
)

// Ident is a name in a tag value, with the literal offset of its first byte.
type Ident struct {
	Name string
	Off  int
}

// KeyColumn is one clustering column and its order.
type KeyColumn struct {
	Ident
	Desc bool
}

// BucketKind tells how a bucket column is derived.
type BucketKind int

const (
	Hash  BucketKind = iota + 1 // hash(col) % N
	Hour                        // hour(col): the UTC hour the timestamp falls in
	Day                         // day(col): the UTC day
	Week                        // week(col[, day]): the week starting on Monday (ISO) or on day, UTC
	Month                       // month(col): the UTC calendar month
	Days                        // days(col, N[, 'date']): N-day ranges counted from 1970-01-01 or from date
)

var bucketNames = map[string]BucketKind{"hash": Hash, "hour": Hour, "day": Day, "week": Week, "month": Month, "days": Days}

func (k BucketKind) String() string {
	for name, kind := range bucketNames {
		if kind == k {
			return name
		}
	}
	return "bucket(" + strconv.Itoa(int(k)) + ")"
}

// Bucket is a parsed bucket expression.
type Bucket struct {
	Kind   BucketKind
	Source Ident // the column the bucket is derived from
	N      int64 // modulus for Hash, width in days for Days
	NOff   int
	Column Ident // the bucket column's name; Off is -1 when defaulted
	Off    int   // offset of the expression

	// Start is where Week and Days buckets begin: the first day of the
	// week, time.Weekday's number (Sunday is 0; Monday by default); the
	// day N-day ranges are counted from, in days since 1970-01-01.
	// StartOff is -1 when the expression leaves it out.
	Start    int64
	StartOff int
}

// Size holds the optional size hints of a pattern. Zero means not given.
type Size struct {
	Rows       int64 // expected rows per partition key value
	RowBytes   int64 // average bytes per row
	Keys       int64 // expected distinct partition key values...
	Total      int64 // ...sharing this many rows in all
	Rate       int64 // rows written per partition key value...
	RatePer    int64 // ...per this many seconds
	LimitRows  int64 // the rows above which a partition is flagged (default 100k)
	LimitBytes int64 // the bytes above which a partition is flagged (default 100 MB)
	Off        int
}

// Ignore silences one diagnostic code on one table, with the reason.
type Ignore struct {
	Code   string
	Reason string
	Off    int
}

// Pattern is one access pattern as declared on a blank cqlgen.Pattern field.
type Pattern struct {
	Table     Ident
	Canonical bool
	// Immutable marks an entity that is written once and never changed:
	// its writes need no version and keep a plain write's cost.
	Immutable    bool
	ImmutableOff int
	// Unique marks a table whose primary key no two entities may share:
	// an alternate key, claimed by conditional writes.
	Unique    bool
	UniqueOff int
	// Transactional marks, on the canonical pattern, an entity whose
	// writes are each one Accord transaction (Cassandra 6).
	Transactional    bool
	TransactionalOff int
	Name             Ident // Go name of the read method; empty when defaulted
	Doc              string
	DocOff           int
	PK               []Ident
	PKOff            int // offset of the pk key, or of the table key when pk is absent
	CK               []KeyColumn
	// Prefix lists the clustering columns, from the first, that a read
	// may fix by equality before it bounds the next one.
	Prefix    []Ident
	PrefixOff int
	TTL       int64 // seconds; 0 means none
	HasTTL    bool
	TTLOff    int
	Bucket    *Bucket
	Cols      []Ident // nil means every field
	Static    []Ident
	ID        []Ident
	IDOff     int
	Size      *Size
	Ignores   []Ignore
	// Where is the predicate of a sparse table: it holds only the
	// entities for which every condition holds.
	Where    []Cond
	WhereOff int
	KeyOffs  map[string]int // literal offset of every key present

	// Table options: nil or zero when not given.
	Compaction *Compaction
	GCGrace    int64 // seconds
	HasGCGrace bool
	Comment    string
	HasComment bool

	// Index is set on an index pattern (index:"name"), which declares no
	// table of its own: Table is then empty.
	Index *Index
	// Filter is set on a filter pattern (filter:"..."): a read combining
	// several indexed columns, which declares no table nor index.
	Filter *Filter

	// Deprecated marks a table on its way out (table:"...,deprecated"):
	// still written, its read method deprecated, dropped by hand once
	// ReplacedBy, if named, is filled and read instead.
	Deprecated    bool
	DeprecatedOff int
	ReplacedBy    Ident // replaced_by:"table"; empty when not given

	// Scan opts the table in to a typed full-table read over token ranges
	// (table:"...,scan"): a batch job's pass over every row.
	Scan    bool
	ScanOff int
}

// CondOp is how a where condition tests its column.
type CondOp int

const (
	CondEq  CondOp = iota + 1 // col = v
	CondIn                    // col in (v1, v2, ...)
	CondSet                   // col is set: not nil, not empty, not zero
)

// Literal is a value in a where condition, as written: a word, a number
// or a CQL string.
type Literal struct {
	Text   string // a string's value, without its quotes
	Quoted bool
	Off    int
}

// Cond is one condition of a where key.
type Cond struct {
	Column Ident
	Op     CondOp
	Values []Literal // one for CondEq, one or more for CondIn
}

// PatternKeys are the keys a pattern tag may use, in documentation order.
var PatternKeys = []string{"table", "pk", "ck", "prefix", "bucket", "ttl", "cols", "static", "id", "where", "name", "doc", "size", "ignore", "compaction", "gc_grace", "comment", "replaced_by", "index", "on", "col", "match", "score", "filter"}

// MaxTTL is Cassandra's largest TTL: 20 years, in seconds.
const MaxTTL = 20 * 365 * 24 * 3600

// ParsePattern parses the tag literal of a Pattern field. It returns every
// mistake it finds, not only the first; the Pattern is nil when the tag
// cannot be read at all or has no table key.
func ParsePattern(lit string) (*Pattern, []*Error) {
	pairs, err := Scan(lit)
	if err != nil {
		return nil, []*Error{err.(*Error)}
	}
	p := &Pattern{KeyOffs: map[string]int{}}
	var errs []*Error
	add := func(e *Error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	isIndex := slices.ContainsFunc(pairs, func(kv Pair) bool { return kv.Key == "index" })
	for _, kv := range pairs {
		if _, dup := p.KeyOffs[kv.Key]; dup && slices.Contains(PatternKeys, kv.Key) {
			add(&Error{Off: kv.KeyOff, Code: "tag-syntax", Msg: fmt.Sprintf("%s is given twice", kv.Key)})
			continue
		}
		p.KeyOffs[kv.Key] = kv.KeyOff
		v := kv.Value
		switch kv.Key {
		case "table":
			add(p.parseTable(v))
		case "pk":
			p.PKOff = kv.KeyOff
			var e *Error
			p.PK, e = identList(v, "pk")
			add(e)
		case "ck":
			add(p.parseCK(v))
		case "bucket":
			var e *Error
			p.Bucket, e = parseBucket(v)
			add(e)
		case "ttl":
			p.TTLOff = kv.KeyOff
			var e *Error
			p.TTL, e = ParseTTL(v)
			p.HasTTL = e == nil
			add(e)
		case "cols":
			var e *Error
			p.Cols, e = identList(v, "cols")
			if p.Cols == nil {
				p.Cols = []Ident{}
			}
			add(e)
		case "static":
			var e *Error
			p.Static, e = identList(v, "static")
			add(e)
		case "prefix":
			p.PrefixOff = kv.KeyOff
			var e *Error
			p.Prefix, e = identList(v, "prefix")
			add(e)
		case "id":
			p.IDOff = kv.KeyOff
			var e *Error
			p.ID, e = identList(v, "id")
			add(e)
		case "where":
			p.WhereOff = kv.KeyOff
			var e *Error
			p.Where, e = parseWhere(v)
			add(e)
		case "name":
			var e *Error
			p.Name, e = soleIdent(v, "name")
			add(e)
		case "doc":
			var e *Error
			p.Doc, e = oneLine(v, "doc")
			p.DocOff = v.Off(0)
			add(e)
		case "size":
			var e *Error
			p.Size, e = parseSize(v)
			add(e)
		case "ignore":
			var e *Error
			p.Ignores, e = parseIgnore(v)
			add(e)
		case "compaction":
			var e *Error
			p.Compaction, e = parseCompaction(v)
			add(e)
		case "gc_grace":
			var e *Error
			p.GCGrace, e = parseDuration(v, "gc_grace", "bad-value")
			p.HasGCGrace = e == nil
			add(e)
		case "comment":
			var e *Error
			p.Comment, e = oneLine(v, "comment")
			p.HasComment = true
			add(e)
		case "replaced_by":
			var e *Error
			p.ReplacedBy, e = soleIdent(v, "replaced_by")
			add(e)
		case "filter":
			// An index pattern's filter narrows its ANN read; without
			// index:"...", filter:"..." is a filter pattern.
			if isIndex {
				add(p.parseIndexKey(kv.Key, v))
				break
			}
			var e *Error
			p.Filter, e = parseFilter(v)
			add(e)
		case "index", "on", "col", "match", "score":
			add(p.parseIndexKey(kv.Key, v))
		default:
			msg := fmt.Sprintf("unknown key %q in a pattern tag", kv.Key)
			if s := suggest.Closest(strings.ToLower(kv.Key), PatternKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += "; known keys: " + strings.Join(PatternKeys, ", ")
			}
			add(&Error{Off: kv.KeyOff, Code: "unknown-key", Msg: msg})
		}
	}
	if _, ok := p.KeyOffs["filter"]; ok && !isIndex {
		if p.Index != nil {
			if p.Filter != nil {
				p.Filter.On = p.Index.On
			}
			p.Index = nil
		}
		shape := p.checkFilterPattern()
		for _, e := range shape {
			add(e)
		}
		if p.Filter == nil || len(shape) > 0 {
			return nil, errs
		}
		if _, ok := p.KeyOffs["pk"]; !ok {
			p.PKOff = p.KeyOffs["filter"]
		}
		return p, errs
	}
	shape := p.checkIndexPattern()
	for _, e := range shape {
		add(e)
	}
	if _, ok := p.KeyOffs["index"]; ok {
		if _, ok := p.KeyOffs["pk"]; !ok {
			p.PKOff = p.KeyOffs["index"]
		}
		if len(shape) > 0 {
			return nil, errs
		}
		return p, errs
	}
	p.Index = nil // on, col or match without index: reported above
	if _, ok := p.KeyOffs["table"]; !ok {
		add(&Error{Off: 0, Code: "bad-value", Msg: `a pattern needs a table name: table:"name" (or, for an index on a table, index:"name" col:"column")`})
		return nil, errs
	}
	if _, ok := p.KeyOffs["pk"]; !ok {
		p.PKOff = p.KeyOffs["table"]
	}
	return p, errs
}

func (p *Pattern) parseTable(v Value) *Error {
	lx := newLexer(v)
	id, err := lx.ident("bad-value", "table")
	if err != nil {
		return err
	}
	p.Table = id
	for lx.accept(",") {
		opt, err := lx.ident("bad-value", "table option")
		if err != nil {
			return err
		}
		var set *bool
		var off *int
		switch opt.Name {
		case "canonical":
			set = &p.Canonical
		case "immutable":
			set, off = &p.Immutable, &p.ImmutableOff
		case "unique":
			set, off = &p.Unique, &p.UniqueOff
		case "transactional":
			set, off = &p.Transactional, &p.TransactionalOff
		case "deprecated":
			set, off = &p.Deprecated, &p.DeprecatedOff
		case "scan":
			set, off = &p.Scan, &p.ScanOff
		default:
			msg := fmt.Sprintf("unknown table option %q (the options are canonical, immutable, transactional, unique, deprecated and scan)", opt.Name)
			return &Error{Off: opt.Off, Code: "bad-value", Msg: msg}
		}
		if *set {
			return &Error{Off: opt.Off, Code: "bad-value", Msg: opt.Name + " is given twice"}
		}
		*set = true
		if off != nil {
			*off = opt.Off
		}
	}
	return lx.end("bad-value", "table")
}

func (p *Pattern) parseCK(v Value) *Error {
	lx := newLexer(v)
	if lx.peek().kind == tokEOF {
		return nil
	}
	for {
		id, err := lx.ident("bad-value", "ck")
		if err != nil {
			return err
		}
		kc := KeyColumn{Ident: id}
		if t := lx.peek(); t.kind == tokWord {
			switch strings.ToLower(t.text) {
			case "asc":
				lx.next()
			case "desc":
				lx.next()
				kc.Desc = true
			default:
				return lx.errorf(t, "bad-value", "ck: expected asc, desc or a comma after %q, found %s", id.Name, t)
			}
		}
		p.CK = append(p.CK, kc)
		if !lx.accept(",") {
			return lx.end("bad-value", "ck")
		}
	}
}

// parseWhere reads the conditions of a sparse table, joined by and:
// "status in (OPEN, PENDING) and agent_id is set", "archived = false",
// "kind = 'bug report'".
func parseWhere(v Value) ([]Cond, *Error) {
	const code, what = "bad-where", "where"
	lx := newLexer(v)
	if lx.peek().kind == tokEOF {
		return nil, lx.errorf(lx.peek(), code, "where is empty; write conditions such as status = OPEN and agent_id is set, or drop the key")
	}
	var conds []Cond
	for {
		col, err := lx.ident(code, what)
		if err != nil {
			return nil, err
		}
		c := Cond{Column: col}
		switch t := lx.next(); {
		case t.kind == tokPunct && t.text == "=":
			c.Op = CondEq
			lit, err := lx.literal(code, what)
			if err != nil {
				return nil, err
			}
			c.Values = []Literal{lit}
		case t.kind == tokWord && strings.EqualFold(t.text, "in"):
			c.Op = CondIn
			if err := lx.expect("(", code, "where ... in"); err != nil {
				return nil, err
			}
			for {
				lit, err := lx.literal(code, "where ... in")
				if err != nil {
					return nil, err
				}
				c.Values = append(c.Values, lit)
				if !lx.accept(",") {
					break
				}
			}
			if err := lx.expect(")", code, "where ... in"); err != nil {
				return nil, err
			}
		case t.kind == tokWord && strings.EqualFold(t.text, "is"):
			c.Op = CondSet
			if s := lx.next(); s.kind != tokWord || !strings.EqualFold(s.text, "set") {
				return nil, lx.errorf(s, code, "where: expected \"is set\" after %s, found %s", col.Name, s)
			}
		default:
			return nil, lx.errorf(t, code, "where: expected =, in (...) or is set after %s, found %s", col.Name, t)
		}
		conds = append(conds, c)
		t := lx.peek()
		if t.kind == tokEOF {
			return conds, nil
		}
		if t.kind == tokWord && strings.EqualFold(t.text, "or") {
			return nil, lx.errorf(t, code, "where: conditions are joined by and only; for a choice of values of one column write col in (a, b)")
		}
		if t.kind != tokWord || !strings.EqualFold(t.text, "and") {
			return nil, lx.errorf(t, code, "where: expected and between conditions, found %s", t)
		}
		lx.next()
	}
}

// identList parses "a, b, c". An empty value gives an empty list.
func identList(v Value, what string) ([]Ident, *Error) {
	lx := newLexer(v)
	if lx.peek().kind == tokEOF {
		return nil, nil
	}
	var ids []Ident
	for {
		id, err := lx.ident("bad-value", what)
		if err != nil {
			return ids, err
		}
		ids = append(ids, id)
		if !lx.accept(",") {
			return ids, lx.end("bad-value", what)
		}
	}
}

func parseBucket(v Value) (*Bucket, *Error) {
	const code = "bad-bucket"
	lx := newLexer(v)
	fn := lx.next()
	kind, ok := bucketNames[strings.ToLower(fn.text)]
	if fn.kind != tokWord || !ok {
		return nil, lx.errorf(fn, code, "bucket: expected hash(col) %% N, hour(col), day(col), week(col[, day]), month(col) or days(col, N[, 'date']), found %s", fn)
	}
	b := &Bucket{Kind: kind, Off: v.Off(fn.pos), Column: Ident{Name: "bucket", Off: -1}, StartOff: -1}
	if kind == Week {
		b.Start = int64(time.Monday)
	}
	if err := lx.expect("(", code, "bucket"); err != nil {
		return nil, err
	}
	src, err := lx.ident(code, "bucket")
	if err != nil {
		return nil, err
	}
	b.Source = src
	// count reads the N of days(col, N) and hash(col) % N, after sep.
	count := func(sep, what string) *Error {
		if err := lx.expect(sep, code, what); err != nil {
			return err
		}
		n, t, err := lx.number(code, what)
		if err != nil {
			return err
		}
		b.N, b.NOff = n, v.Off(t.pos)
		return nil
	}
	if kind == Days {
		if err := count(",", "days(col, N)"); err != nil {
			return nil, err
		}
	}
	if t := lx.peek(); t.kind == tokPunct && t.text == "," {
		if kind != Week && kind != Days {
			return nil, lx.errorf(t, code, "%s(col) takes one argument; only week(col, day) and days(col, N, 'date') say where their buckets start", kind)
		}
		lx.next()
		if err := parseBucketStart(lx, b); err != nil {
			return nil, err
		}
	}
	if err := lx.expect(")", code, "bucket"); err != nil {
		return nil, err
	}
	if kind == Hash {
		if err := count("%", "hash(col) % N"); err != nil {
			return nil, err
		}
	}
	if t := lx.peek(); t.kind == tokWord && strings.EqualFold(t.text, "as") {
		lx.next()
		name, err := lx.ident(code, "bucket ... as")
		if err != nil {
			return nil, err
		}
		b.Column = name
	}
	return b, lx.end(code, "bucket")
}

// weekdays are the names week(col, day) takes, as time.Weekday numbers.
var weekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// parseBucketStart reads where a week or N-day bucket starts: a weekday
// name for week(col, sunday), a date in quotes for days(col, N,
// '2024-01-07').
func parseBucketStart(lx *lexer, b *Bucket) *Error {
	const code = "bad-bucket"
	t := lx.next()
	b.StartOff = lx.v.Off(t.pos)
	if b.Kind == Week {
		day, ok := weekdays[strings.ToLower(t.text)]
		if t.kind != tokWord || !ok {
			return lx.errorf(t, code, "week(col, day): expected the first day of the week, monday (the default, as ISO 8601) to sunday, found %s", t)
		}
		b.Start = int64(day)
		return nil
	}
	d, err := time.Parse("2006-01-02", t.text)
	if t.kind != tokString || err != nil {
		return lx.errorf(t, code, "days(col, N, 'date'): expected the day the ranges are counted from, as a quoted date such as '2024-01-07', found %s", t)
	}
	b.Start = int64(d.Sub(time.Unix(0, 0).UTC()) / (24 * time.Hour))
	return nil
}

// ParseTTL reads a duration such as 90d, 12h, 1w2d or 3600s (units s, m,
// h, d, w) and returns it in seconds. "0" means no TTL.
func ParseTTL(v Value) (int64, *Error) { return parseDuration(v, "ttl", "bad-ttl") }

// parseDuration reads the duration of key (ttl, gc_grace) in seconds,
// reporting mistakes with code.
func parseDuration(v Value, key, code string) (int64, *Error) {
	s := v.Text
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	end := len(strings.TrimRight(s, " "))
	if i == end {
		return 0, &Error{Off: v.Off(0), Code: code, Msg: key + ` is empty; write a duration such as "90d" or "0" for none`}
	}
	if s[i:end] == "0" {
		return 0, nil
	}
	var total int64
	for i < end {
		j := i
		for j < end && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, &Error{Off: v.Off(i), Code: code, Msg: fmt.Sprintf(key+" %q: expected a number at %q (write e.g. 90d, 12h, 1w2d)", s, s[i:end])}
		}
		n, err := strconv.ParseInt(s[i:j], 10, 64)
		if err != nil || n > MaxTTL {
			return 0, &Error{Off: v.Off(i), Code: code, Msg: fmt.Sprintf(key+" %q: %s is too large (the maximum is 20 years)", s, s[i:j])}
		}
		if j == end {
			return 0, &Error{Off: v.Off(j), Code: code, Msg: fmt.Sprintf(key+" %q: %s needs a unit: s, m, h, d, w or y", s, s[i:j])}
		}
		var unit int64
		switch s[j] {
		case 's':
			unit = 1
		case 'm':
			unit = 60
		case 'h':
			unit = 3600
		case 'd':
			unit = 86400
		case 'w':
			unit = 7 * 86400
		case 'y':
			unit = 365 * 86400 // as Cassandra's 20-year maximum counts them
		default:
			return 0, &Error{Off: v.Off(j), Code: code, Msg: fmt.Sprintf(key+" %q: unknown unit %q (use s, m, h, d, w or y)", s, firstRune(s[j:]))}
		}
		total += n * unit
		if total > MaxTTL {
			return 0, &Error{Off: v.Off(0), Code: code, Msg: fmt.Sprintf(key+" %q is longer than Cassandra's maximum of 20 years (630720000s)", s)}
		}
		i = j + 1
	}
	return total, nil
}

// SizeKeys are the hints a size tag may give.
var SizeKeys = []string{"rows", "rowbytes", "keys", "total", "rate", "limitrows", "limitbytes"}

// parseSize reads size hints: "rows=10800", "rowbytes=50", "keys=1M,
// total=5G", "rate=120/d" (rows a partition key value gains per s, m, h, d
// or w), and the per-table limits "limitrows=1M", "limitbytes=200M".
func parseSize(v Value) (*Size, *Error) {
	const code = "bad-size"
	lx := newLexer(v)
	sz := &Size{Off: v.Off(0)}
	seen := map[string]bool{}
	for lx.peek().kind != tokEOF {
		key, err := lx.ident(code, "size")
		if err != nil {
			return nil, err
		}
		if !slices.Contains(SizeKeys, key.Name) {
			return nil, &Error{Off: key.Off, Code: code, Msg: fmt.Sprintf("size: unknown hint %q (known: %s)", key.Name, strings.Join(SizeKeys, ", "))}
		}
		if seen[key.Name] {
			return nil, &Error{Off: key.Off, Code: code, Msg: fmt.Sprintf("size: %s is given twice", key.Name)}
		}
		seen[key.Name] = true
		if err := lx.expect("=", code, "size"); err != nil {
			return nil, err
		}
		t := lx.next()
		n, ok := parseCount(t.text)
		if t.kind != tokNumber || !ok {
			return nil, lx.errorf(t, code, "size: %s wants a count such as 10800, 50k, 100M or 2G, found %s", key.Name, t)
		}
		switch key.Name {
		case "rows":
			sz.Rows = n
		case "rowbytes":
			sz.RowBytes = n
		case "keys":
			sz.Keys = n
		case "total":
			sz.Total = n
		case "limitrows":
			sz.LimitRows = n
		case "limitbytes":
			sz.LimitBytes = n
		case "rate":
			if !lx.accept("/") {
				return nil, lx.errorf(lx.peek(), code, "size: rate wants a count per unit of time, such as rate=120/d (units s, m, h, d, w)")
			}
			u := lx.next()
			secs := map[string]int64{"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}[u.text]
			if u.kind != tokWord || secs == 0 {
				return nil, lx.errorf(u, code, "size: rate unit must be s, m, h, d or w, found %s", u)
			}
			sz.Rate, sz.RatePer = n, secs
		}
		if !lx.accept(",") && lx.peek().kind != tokWord && lx.peek().kind != tokEOF {
			return nil, lx.errorf(lx.peek(), code, "size: expected a comma, found %s", lx.peek())
		}
	}
	if (sz.Keys == 0) != (sz.Total == 0) {
		return nil, &Error{Off: v.Off(0), Code: code, Msg: "size: keys and total go together (rows per partition = total / keys)"}
	}
	return sz, nil
}

// parseIgnore reads "code: reason; code: reason". A reason is required:
// silencing a check is a design decision, and the tag is where a reviewer
// reads why.
func parseIgnore(v Value) ([]Ignore, *Error) {
	var out []Ignore
	text := v.Text
	start := 0
	for start <= len(text) {
		end := strings.IndexByte(text[start:], ';')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		part := text[start:end]
		lead := len(part) - len(strings.TrimLeft(part, " "))
		code, reason, ok := strings.Cut(strings.TrimSpace(part), ":")
		code, reason = strings.TrimSpace(code), strings.TrimSpace(reason)
		if !ok || code == "" || reason == "" {
			return nil, &Error{Off: v.Off(start + lead), Code: "bad-value", Msg: `ignore wants "code: reason", e.g. ignore:"growth-unknown: rows are deleted by a nightly job"`}
		}
		out = append(out, Ignore{Code: code, Reason: reason, Off: v.Off(start + lead)})
		start = end + 1
	}
	return out, nil
}

// parseCount reads a positive count with an optional k, M or G suffix.
func parseCount(s string) (int64, bool) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1e9, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}
