package tag

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestScanOffsets(t *testing.T) {
	lit := "`table:\"listening_history\" pk:\"user_id\"`"
	pairs, err := Scan(lit)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 {
		t.Fatalf("got %d pairs, want 2", len(pairs))
	}
	for _, p := range pairs {
		if got := lit[p.KeyOff : p.KeyOff+len(p.Key)]; got != p.Key {
			t.Errorf("key %q: offset %d points at %q", p.Key, p.KeyOff, got)
		}
		if got := lit[p.Value.Off(0) : p.Value.Off(0)+len(p.Value.Text)]; got != p.Value.Text {
			t.Errorf("value %q: offset %d points at %q", p.Value.Text, p.Value.Off(0), got)
		}
	}
}

func TestScanInterpretedLiteral(t *testing.T) {
	// In a double-quoted literal every quote of the value is escaped: the
	// offsets must still land on the source bytes.
	lit := strconv.Quote(`table:"t" ck:"a desc, b"`)
	pairs, err := Scan(lit)
	if err != nil {
		t.Fatal(err)
	}
	ck := pairs[1].Value
	i := strings.Index(ck.Text, "b")
	if got := lit[ck.Off(i)]; got != 'b' {
		t.Errorf("offset of b in %s points at %q", lit, got)
	}
}

func TestScanErrors(t *testing.T) {
	for _, tc := range []struct{ lit, want string }{
		{"`table`", "must be followed by"},
		{"`table:x`", "double-quoted"},
		{"`table:\"x`", "no closing quote"},
		{"`table:\"x\"pk:\"y\"`", "separated by a space"},
		{"table", "not a string literal"},
	} {
		_, err := Scan(tc.lit)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Scan(%s) = %v, want error containing %q", tc.lit, err, tc.want)
		}
	}
}

func TestParsePattern(t *testing.T) {
	lit := "`table:\"daily_charts,canonical\" pk:\"chart_date\" ck:\"play_count DESC, track_id\" bucket:\"hash(track_id) % 100 as shard\" ttl:\"30d\" cols:\"track_name, artist\" static:\"x\" id:\"track_id\" name:\"DailyChart\" doc:\"today's top tracks\" size:\"rows=1M, rowbytes=50\"`"
	p, errs := ParsePattern(lit)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	want := &Pattern{
		Table:     Ident{"daily_charts", p.Table.Off},
		Canonical: true,
		CK:        []KeyColumn{{Ident{"play_count", p.CK[0].Off}, true}, {Ident{"track_id", p.CK[1].Off}, false}},
		TTL:       30 * 86400,
		Bucket:    &Bucket{Kind: Hash, Source: Ident{"track_id", p.Bucket.Source.Off}, N: 100, Column: Ident{"shard", p.Bucket.Column.Off}},
		Size:      &Size{Rows: 1e6, RowBytes: 50},
	}
	if p.Table != want.Table || !p.Canonical || !reflect.DeepEqual(p.CK, want.CK) || p.TTL != want.TTL {
		t.Errorf("got %+v", p)
	}
	if b := p.Bucket; b.Kind != Hash || b.N != 100 || b.Source.Name != "track_id" || b.Column.Name != "shard" {
		t.Errorf("bucket = %+v", b)
	}
	if p.Size.Rows != 1e6 || p.Size.RowBytes != 50 {
		t.Errorf("size = %+v", p.Size)
	}
	if p.Name.Name != "DailyChart" || p.Doc != "today's top tracks" {
		t.Errorf("name %q doc %q", p.Name.Name, p.Doc)
	}
	for _, id := range []Ident{p.Table, p.PK[0], p.CK[0].Ident, p.Bucket.Source, p.Static[0], p.ID[0], p.Cols[1]} {
		if got := lit[id.Off : id.Off+len(id.Name)]; got != id.Name {
			t.Errorf("%q: offset %d points at %q", id.Name, id.Off, got)
		}
	}
}

func TestParseBuckets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind BucketKind
		n    int64
		col  string
	}{
		{"hash(a) % 16", Hash, 16, "bucket"},
		{"week(ts, sunday) as week", Week, 0, "week"},
		{"days(ts, 10, '2024-01-07')", Days, 10, "bucket"},
		{"hour(ts)", Hour, 0, "bucket"},
		{"day(ts) as day", Day, 0, "day"},
		{"week(ts)", Week, 0, "bucket"},
		{"month(ts) as month", Month, 0, "month"},
		{"days(ts, 7) as week_no", Days, 7, "week_no"},
	} {
		p, errs := ParsePattern("`table:\"t\" bucket:\"" + tc.in + "\"`")
		if len(errs) > 0 {
			t.Errorf("%s: %v", tc.in, errs[0])
			continue
		}
		if b := p.Bucket; b.Kind != tc.kind || b.N != tc.n || b.Column.Name != tc.col {
			t.Errorf("%s: got %+v", tc.in, b)
		}
	}
}

// TestParseBucketStart reads where weeks and N-day ranges start: the
// default (Monday, 1970-01-01) unless the expression names a day, and a
// bad-bucket error at the word for a day that is none.
func TestParseBucketStart(t *testing.T) {
	for _, tc := range []struct {
		in    string
		start int64
		set   bool
	}{
		{"week(ts)", int64(time.Monday), false},
		{"week(ts, Sunday)", int64(time.Sunday), true},
		{"week(ts, saturday) as w", int64(time.Saturday), true},
		{"days(ts, 7)", 0, false},
		{"days(ts, 7, '2024-01-07')", 19729, true},
		{"days(ts, 7, '1969-12-25')", -7, true},
	} {
		p, errs := ParsePattern("`table:\"t\" bucket:\"" + tc.in + "\"`")
		if len(errs) > 0 {
			t.Errorf("%s: %v", tc.in, errs[0])
			continue
		}
		if b := p.Bucket; b.Start != tc.start || (b.StartOff >= 0) != tc.set {
			t.Errorf("%s: start %d (set %v), want %d (%v)", tc.in, b.Start, b.StartOff >= 0, tc.start, tc.set)
		}
	}
	for in, want := range map[string]string{
		"week(ts, sun)":             `found "sun"`,
		"week(ts, 'sunday')":        `found 'sunday'`,
		"days(ts, 7, 2024)":         `found "2024"`,
		"days(ts, 7, '2024-02-30')": `found '2024-02-30'`,
		"day(ts, sunday)":           `takes one argument`,
		"hash(ts, sunday) % 4":      `takes one argument`,
	} {
		_, errs := ParsePattern("`table:\"t\" bucket:\"" + in + "\"`")
		if len(errs) != 1 || errs[0].Code != "bad-bucket" || !strings.Contains(errs[0].Msg, want) {
			t.Errorf("%s: %v, want a bad-bucket error with %s", in, errs, want)
		}
	}
}

func TestParseTTL(t *testing.T) {
	for in, want := range map[string]int64{"90d": 7776000, "30d": 2592000, "1w2d": 9 * 86400, "3600s": 3600, "12h": 43200, "0": 0, "90m": 5400, "1y": 31536000, "20y": 630720000, "1y6w": 365*86400 + 42*86400} {
		got, err := ParseTTL(Value{Text: in, offs: identityOffsets(len(in))})
		if err != nil || got != want {
			t.Errorf("ParseTTL(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "90", "d", "90x", "-1d", "21000w", "1.5h", "21y", "19y53w"} {
		if _, err := ParseTTL(Value{Text: in, offs: identityOffsets(len(in))}); err == nil {
			t.Errorf("ParseTTL(%q) succeeded", in)
		}
	}
}

func TestPatternErrorsAll(t *testing.T) {
	// Every mistake in one tag is reported, each at its own offset.
	lit := "`table:\"t\" ttl:\"ninety\" tabel:\"x\" bucket:\"hash(a)\" ck:\"a up\"`"
	_, errs := ParsePattern(lit)
	codes := map[string]bool{}
	for _, e := range errs {
		codes[e.Code] = true
		if e.Off < 0 || e.Off > len(lit) {
			t.Errorf("%v: offset out of range", e)
		}
	}
	for _, c := range []string{"bad-ttl", "unknown-key", "bad-bucket", "bad-value"} {
		if !codes[c] {
			t.Errorf("no %s error in %v", c, errs)
		}
	}
}

func TestParseField(t *testing.T) {
	f, errs := ParseField("`db:\"message_id\" cql:\"frozen<map<text, list<timeuuid>>>\" json:\"id\"`")
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if f.Column.Name != "message_id" || f.Type.String() != "frozen<map<text, list<timeuuid>>>" {
		t.Errorf("got column %q type %s", f.Column.Name, f.Type)
	}
	f, _ = ParseField("`db:\"-\"`")
	if !f.Skip {
		t.Error(`db:"-" does not skip`)
	}
}

func TestParseFieldUnique(t *testing.T) {
	lit := "`db:\"event_id\" cql:\"timeuuid, unique\"`"
	f, errs := ParseField(lit)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if f.Type.String() != "timeuuid" || f.Unique == nil || lit[f.Unique.Off:f.Unique.Off+6] != "unique" {
		t.Fatalf("type %s, unique %+v", f.Type, f.Unique)
	}
	if f, _ := ParseField("`cql:\"timeuuid\"`"); f.Unique != nil {
		t.Error("unique without the option")
	}
	for _, bad := range []string{"`cql:\"uuid,uniq\"`", "`cql:\"uuid,\"`", "`cql:\"uuid,unique,unique\"`", "`cql:\"uuid unique\"`"} {
		if _, errs := ParseField(bad); len(errs) != 1 || errs[0].Code != "bad-value" {
			t.Errorf("%s: errors %v, want one bad-value", bad, errs)
		}
	}
}

// db:"name,quoted" opts in to a name CQL reads only quoted; the offset
// points at the option; other options after the comma are gocqlx's and
// left alone, as before.
func TestParseFieldQuoted(t *testing.T) {
	lit := "`db:\"createdAt,omitempty,quoted\"`"
	f, errs := ParseField(lit)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if f.Column.Name != "createdAt" || f.Quoted == nil || lit[f.Quoted.Off:f.Quoted.Off+6] != "quoted" {
		t.Fatalf("column %+v, quoted %+v", f.Column, f.Quoted)
	}
	if f, errs := ParseField("`db:\"from,omitempty\"`"); len(errs) > 0 || f.Quoted != nil || f.Column.Name != "from" {
		t.Errorf("without the option: %+v, %v", f, errs)
	}
}

// FuzzScan checks Scan against reflect.StructTag: wherever Scan accepts a
// tag, Lookup must find the same first value for every key, and every
// offset must lie inside the literal.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"`table:\"a\" pk:\"b\"`",
		`"table:\"a\\u00e9\" ck:\"x desc\""`,
		"`db:\"x\" json:\"y,omitempty\"`",
		"`a:\"\\\"\"`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		pairs, err := Scan(lit)
		if err != nil {
			if e := err.(*Error); e.Off < 0 || e.Off > len(lit) {
				t.Fatalf("error offset %d outside literal of %d bytes", e.Off, len(lit))
			}
			return
		}
		content, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("Scan accepted %s, which is not a Go string literal", lit)
		}
		st := reflect.StructTag(content)
		first := map[string]bool{}
		for _, p := range pairs {
			if p.KeyOff < 0 || p.KeyOff >= len(lit) {
				t.Fatalf("key offset %d outside literal", p.KeyOff)
			}
			for i := 0; i <= len(p.Value.Text); i++ {
				if o := p.Value.Off(i); o < 0 || o >= len(lit) {
					t.Fatalf("value offset %d outside literal", o)
				}
			}
			if first[p.Key] {
				continue
			}
			first[p.Key] = true
			if v, ok := st.Lookup(p.Key); !ok || v != p.Value.Text {
				t.Fatalf("key %q: Scan gives %q, reflect gives %q (%v)", p.Key, p.Value.Text, v, ok)
			}
		}
	})
}

// FuzzParsePattern checks that no tag makes the pattern parser panic and
// that every error points inside the literal.
func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{
		"`table:\"t,canonical\" pk:\"a, b\" ck:\"c desc, d asc\" ttl:\"1w2d\"`",
		"`table:\"t\" bucket:\"hash(x) % 100 as shard\" size:\"rows=10k, rowbytes=1k\"`",
		"`table:\"t\" bucket:\"days(ts, 7)\" cols:\"a,b\" static:\"s\" id:\"a\" name:\"N\" doc:\"d\"`",
		"`table:\"\" pk:\",\" ck:\"desc\" bucket:\"hash(\" ttl:\"9999999999999999999d\"`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		_, errs := ParsePattern(lit)
		for _, e := range errs {
			if e.Off < 0 || e.Off > len(lit) {
				t.Fatalf("%v: offset outside literal of %d bytes", e, len(lit))
			}
			if e.Code == "" || e.Msg == "" {
				t.Fatalf("error without code or message: %+v", e)
			}
		}
		_, errs = ParseField(lit)
		for _, e := range errs {
			if e.Off < 0 || e.Off > len(lit) {
				t.Fatalf("%v: offset outside literal of %d bytes", e, len(lit))
			}
		}
	})
}

// cqlgen:"ttl, writetime" asks GetTimes for either or both; the offsets
// point at each option.
func TestParseFieldTimes(t *testing.T) {
	lit := "`db:\"body\" cqlgen:\"writetime, ttl\"`"
	f, errs := ParseField(lit)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if f.TTL == nil || f.Writetime == nil || lit[f.TTL.Off:f.TTL.Off+3] != "ttl" || lit[f.Writetime.Off:f.Writetime.Off+9] != "writetime" {
		t.Fatalf("ttl %+v, writetime %+v", f.TTL, f.Writetime)
	}
	if f, _ := ParseField("`cqlgen:\"ttl\"`"); f.TTL == nil || f.Writetime != nil {
		t.Errorf("ttl alone: %+v", f)
	}
	for _, bad := range []string{"`cqlgen:\"expiry\"`", "`cqlgen:\"ttl writetime\"`", "`cqlgen:\"ttl,\"`", "`cqlgen:\"\"`"} {
		if _, errs := ParseField(bad); len(errs) != 1 || errs[0].Code != "bad-value" {
			t.Errorf("%s: errors %v, want one bad-value", bad, errs)
		}
	}
}

// score and filter go on an ANN index pattern: score:"similarity" by
// the index's function, score:"similarity(f)" by another.
func TestParseScoreAndFilter(t *testing.T) {
	p, errs := ParsePattern("`index:\"v_idx\" col:\"v\" match:\"ann(euclidean)\" score:\"similarity\" filter:\"kind contains\"`")
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if ix := p.Index; ix == nil || ix.Score != "index" || ix.Filter.Name != "kind" || ix.FilterOp != OpContains || ix.Similarity != "euclidean" {
		t.Fatalf("index %+v", p.Index)
	}
	p, errs = ParsePattern("`index:\"v_idx\" col:\"v\" match:\"ann\" score:\"similarity(dot_product)\"`")
	if len(errs) > 0 || p.Index.Score != "dot_product" {
		t.Fatalf("score %q, %v", p.Index.Score, errs)
	}
	for _, bad := range []string{
		"`index:\"i\" col:\"c\" score:\"similarity\"`",
		"`index:\"i\" col:\"c\" filter:\"k eq\"`",
		"`index:\"i\" col:\"c\" match:\"ann\" score:\"distance\"`",
		"`index:\"i\" col:\"c\" match:\"ann\" score:\"similarity(l2)\"`",
		"`table:\"t\" pk:\"k\" score:\"similarity\"`",
	} {
		if _, errs := ParsePattern(bad); len(errs) != 1 || errs[0].Code != "bad-value" {
			t.Errorf("%s: errors %v, want one bad-value", bad, errs)
		}
	}
}
