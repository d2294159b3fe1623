package tag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Compaction is a table's compaction strategy as written in
// compaction:"...": stcs, lcs, ucs, or twcs(N unit) with its window.
type Compaction struct {
	Strategy   string // stcs, lcs, ucs or twcs
	WindowN    int64  // twcs: the window's count of units
	WindowUnit string // twcs: m, h or d
	Off        int    // the strategy's name
	WindowOff  int    // twcs: the window
}

// CompactionStrategies are the strategies compaction:"..." accepts.
var CompactionStrategies = []string{"stcs", "lcs", "twcs", "ucs"}

// windowUnits are the units of a TWCS window and their seconds; CQL's
// compaction_window_unit has MINUTES, HOURS and DAYS.
var windowUnits = map[string]int64{"m": 60, "h": 3600, "d": 86400}

// WindowSeconds is a TWCS window in seconds, 0 for other strategies.
func (c *Compaction) WindowSeconds() int64 { return c.WindowN * windowUnits[c.WindowUnit] }

// parseCompaction reads stcs, lcs, ucs or twcs(N unit), e.g. twcs(1d).
func parseCompaction(v Value) (*Compaction, *Error) {
	const code = "bad-value"
	lx := newLexer(v)
	id, err := lx.ident(code, "compaction")
	if err != nil {
		return nil, err
	}
	c := &Compaction{Strategy: strings.ToLower(id.Name), Off: id.Off}
	switch c.Strategy {
	case "stcs", "lcs", "ucs":
		return c, lx.end(code, "compaction")
	case "twcs":
	default:
		return nil, &Error{Off: id.Off, Code: code, Msg: fmt.Sprintf("compaction: unknown strategy %q; write stcs (size-tiered), lcs (leveled), ucs (unified) or twcs(window), e.g. twcs(1d), for time series that expire", id.Name)}
	}
	if !lx.accept("(") {
		return nil, lx.errorf(lx.peek(), code, "compaction: twcs needs its window, e.g. twcs(1d) or twcs(6h): the span of writes one SSTable holds")
	}
	t := lx.next()
	n, unit, ok := splitWindow(t.text)
	if t.kind != tokNumber || !ok {
		return nil, lx.errorf(t, code, "compaction: twcs window %s is not a whole number of minutes, hours or days, such as 30m, 6h or 1d", t)
	}
	c.WindowN, c.WindowUnit, c.WindowOff = n, unit, v.Off(t.pos)
	if err := lx.expect(")", code, "compaction twcs(window)"); err != nil {
		return nil, err
	}
	return c, lx.end(code, "compaction")
}

// splitWindow reads N followed by m, h or d; N is positive and at most
// about 20 years in any unit.
func splitWindow(s string) (int64, string, bool) {
	if len(s) < 2 {
		return 0, "", false
	}
	unit := s[len(s)-1:]
	secs, ok := windowUnits[unit]
	if !ok {
		return 0, "", false
	}
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if err != nil || n <= 0 || n*secs > MaxTTL {
		return 0, "", false
	}
	return n, unit, true
}

// Index is an index pattern: a storage-attached index on a column of one
// of the entity's tables, and the read that queries it.
type Index struct {
	Name     Ident // the index name
	On       Ident // the table; empty when defaulted to the source of truth
	Col      Ident // the indexed column
	Keys     bool  // col:"keys(col)": the keys of a map, read by CONTAINS KEY
	Range    bool  // match:"range": a range read on the column instead of equality
	MatchOff int
	// ANN is match:"ann": the rows nearest a vector, by the similarity
	// function Similarity (cosine, unless match:"ann(dot_product)" or
	// ann(euclidean) says).
	ANN        bool
	Similarity string
	// Score is score:"similarity": an ANN read returns each row with the
	// similarity Cassandra computed, by this function (the index's
	// Similarity unless score:"similarity(f)" says); empty: no score.
	Score    string
	ScoreOff int
	// Filter is filter:"column eq|contains" on an ANN read: the rows
	// searched are those whose column passes that condition, which the
	// column's own index pattern serves.
	Filter   Ident
	FilterOp FilterOp
}

// similarities are the functions an ANN index compares vectors with.
var similarities = []string{"cosine", "dot_product", "euclidean"}

// IndexKeys are the keys an index pattern may use.
var IndexKeys = []string{"index", "on", "col", "match", "score", "filter", "pk", "name", "doc", "ignore"}

// tableOnlyKeys are the keys of a table pattern an index pattern refuses.
var tableOnlyKeys = []string{"table", "ck", "prefix", "bucket", "ttl", "cols", "static", "id", "size", "compaction", "gc_grace", "comment"}

// parseIndexKey applies one of the keys only an index pattern has.
func (p *Pattern) parseIndexKey(key string, v Value) *Error {
	if p.Index == nil {
		p.Index = &Index{}
	}
	ix := p.Index
	switch key {
	case "col":
		// col:"name", or col:"keys(name)" for the keys of a map.
		lx := newLexer(v)
		id, err := lx.ident("bad-value", key)
		if err != nil {
			return err
		}
		if lx.accept("(") {
			if id.Name != "keys" {
				return &Error{Off: id.Off, Code: "bad-value", Msg: fmt.Sprintf("col: %s(...) is not an index target cqlgen declares; write the column, or keys(column) for a map's keys (read by contains key)", id.Name)}
			}
			if id, err = lx.ident("bad-value", "col:\"keys(column)\""); err != nil {
				return err
			}
			if err := lx.expect(")", "bad-value", "col:\"keys(column)\""); err != nil {
				return err
			}
			ix.Keys = true
		}
		ix.Col = id
		return lx.end("bad-value", key)
	case "filter":
		// filter:"column eq" or filter:"column contains" on an ANN read:
		// the filter patterns' words, one condition its own index serves.
		f, err := parseFilter(v)
		if err != nil {
			return err
		}
		c := f.Conds[0]
		if len(f.Conds) > 1 || f.OrOff >= 0 || (c.Op != OpEq && c.Op != OpContains) {
			return &Error{Off: f.Off, Code: "bad-value", Msg: `filter on an ANN read is one condition, "column eq" or "column contains", on a column with an index of its own`}
		}
		ix.Filter, ix.FilterOp = c.Column, c.Op
		return nil
	case "index", "on":
		id, err := soleIdent(v, key)
		switch key {
		case "index":
			ix.Name = id
		case "on":
			ix.On = id
		}
		return err
	}
	if key == "score" {
		return ix.parseScore(v)
	}
	// match
	lx := newLexer(v)
	id, err := lx.ident("bad-value", "match")
	if err != nil {
		return err
	}
	ix.MatchOff = id.Off
	if id.Name == "ann" {
		ix.ANN, ix.Similarity = true, "cosine"
		if lx.accept("(") {
			fn, err := lx.ident("bad-value", "match:\"ann(similarity)\"")
			if err != nil {
				return err
			}
			if !slices.Contains(similarities, fn.Name) {
				return &Error{Off: fn.Off, Code: "bad-value", Msg: fmt.Sprintf("match: %q is not a similarity function; ann takes cosine (the default), dot_product or euclidean", fn.Name)}
			}
			ix.Similarity = fn.Name
			if err := lx.expect(")", "bad-value", "match:\"ann(similarity)\""); err != nil {
				return err
			}
		}
	}
	if err := lx.end("bad-value", "match"); err != nil {
		return err
	}
	switch id.Name {
	case "eq", "ann":
	case "range":
		ix.Range = true
	default:
		return &Error{Off: id.Off, Code: "bad-value", Msg: fmt.Sprintf("match: %q is not eq, range or ann; eq (the default) reads rows whose column equals a value, or contains it for a set or list, range reads a column between two values, and ann the rows whose vector is nearest one", id.Name)}
	}
	return nil
}

// parseScore reads score:"similarity" or score:"similarity(f)".
func (ix *Index) parseScore(v Value) *Error {
	const want = `score:"similarity" (by the index's function) or score:"similarity(f)" (f: cosine, dot_product or euclidean)`
	lx := newLexer(v)
	id, err := lx.ident("bad-value", want)
	if err != nil {
		return err
	}
	ix.ScoreOff = id.Off
	if id.Name != "similarity" {
		return &Error{Off: id.Off, Code: "bad-value", Msg: fmt.Sprintf("score: %q is not a score an ANN read returns; say %s", id.Name, want)}
	}
	ix.Score = "index"
	if lx.accept("(") {
		fn, err := lx.ident("bad-value", want)
		if err != nil {
			return err
		}
		if !slices.Contains(similarities, fn.Name) {
			return &Error{Off: fn.Off, Code: "bad-value", Msg: fmt.Sprintf("score: %q is not a similarity function; similarity takes cosine, dot_product or euclidean", fn.Name)}
		}
		ix.Score = fn.Name
		if err := lx.expect(")", "bad-value", want); err != nil {
			return err
		}
	}
	return lx.end("bad-value", want)
}

// checkIndexPattern reports the keys an index pattern cannot take, and
// the ones it needs, once the whole tag is read.
func (p *Pattern) checkIndexPattern() []*Error {
	var errs []*Error
	_, isIndex := p.KeyOffs["index"]
	for _, k := range []string{"on", "col", "match", "score", "filter"} {
		if off, ok := p.KeyOffs[k]; ok && !isIndex {
			errs = append(errs, &Error{Off: off, Code: "bad-value", Msg: fmt.Sprintf("%s belongs to an index pattern, which names its index with index:\"name\"", k)})
		}
	}
	if !isIndex {
		return errs
	}
	for _, k := range tableOnlyKeys {
		if off, ok := p.KeyOffs[k]; ok {
			msg := fmt.Sprintf("an index pattern takes %s, not %s: the index serves reads from a table declared by another pattern", strings.Join(IndexKeys, ", "), k)
			if k == "table" {
				msg = "a pattern declares either a table (table:\"...\") or an index on one (index:\"...\" on:\"table\"), not both"
			}
			errs = append(errs, &Error{Off: off, Code: "bad-value", Msg: msg})
		}
	}
	if off, ok := p.KeyOffs["score"]; ok && p.Index != nil && !p.Index.ANN {
		errs = append(errs, &Error{Off: off, Code: "bad-value", Msg: `score belongs to an ANN read (match:"ann"): the similarity of each row to the vector searched`})
	}
	if off, ok := p.KeyOffs["filter"]; ok && p.Index != nil && !p.Index.ANN {
		errs = append(errs, &Error{Off: off, Code: "bad-value", Msg: `filter belongs to an ANN read (match:"ann"): the column whose own index narrows the rows searched`})
	}
	if _, ok := p.KeyOffs["col"]; !ok {
		errs = append(errs, &Error{Off: p.KeyOffs["index"], Code: "bad-value", Msg: "an index pattern needs the column it indexes: col:\"name\""})
	}
	return errs
}
