// Package review emits schema.md, the review page of a package's model:
// its access patterns with partition estimates and verdicts, indexes,
// table options, fan-out, what other readers must skip, every statement
// the repository can send, and Mermaid diagrams, rendered through
// templates/schema.md.tmpl.
package review

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/templates"
)

// reviewView is the page. Its rows, diagrams and statements are rendered
// entity by entity (entityPart, templates/schema.md.entity.tmpl), so that
// an entity's can come from the cache, and joined section by section.
type reviewView struct {
	Package  string
	Tables   string
	Entities string // the fan-out
	Indexes  string
	Options  string
	Readers  string
	Statics  bool // some table of Readers has static columns
	Diagrams string
	Several  bool // one diagram an entity, of several entities
	// Costs lists, per entity, what each write method sends.
	Costs []reviewCosts
	Limit int // DiagramLimit, which the page states when it splits
	// Statements holds the text of the Statements section for each
	// entity's tables and index reads (entityStatements): every statement
	// the repository can send, rendered as the runtime renders them.
	Statements string
	// Transactions shows, per entity in the transactional mode, its
	// widest transaction, composed from the parts Statements lists.
	Transactions []reviewTransaction
	// Scans: some table has the table option scan, whose statement
	// ScanRows the page then explains.
	Scans bool
}

type reviewTransaction struct {
	Entity, CQL string
}

// transaction is the widest transaction of e, an entity in the
// transactional mode, as the runtime composes it (cqlspec.Transaction):
// an update that moves the entity's row in every other table and takes
// each of its unique keys.
func transaction(e *model.Entity) reviewTransaction {
	part := func(t *model.Table, slot cqlspec.Slot) cqlspec.Statement {
		for _, s := range t.Rendered() {
			if s.Slot == slot {
				return s
			}
		}
		return cqlspec.Statement{}
	}
	canon := e.Canonical.Spec()
	expects := []cqlspec.Expect{{Table: canon, Read: part(e.Canonical, cqlspec.SlotTxnRead)}}
	writes := []cqlspec.Statement{part(e.Canonical, cqlspec.SlotTxnChange)}
	for _, t := range e.Tables {
		if t == e.Canonical {
			continue
		}
		if t.Unique {
			expects = append(expects, cqlspec.Expect{Table: t.Spec(), Read: part(t, cqlspec.SlotTxnClaimRead), Absent: true})
		}
		writes = append(writes, part(t, cqlspec.SlotTxnDelete), part(t, cqlspec.SlotTxnInsert))
	}
	cql, _ := cqlspec.Transaction(expects, writes)
	return reviewTransaction{Entity: e.GoName, CQL: cql}
}

// listing writes every statement of a table or an index read to page as
// a block of CQL under heading, each after a comment that names it: what
// the runtime renders from the same description.
func listing(page *strings.Builder, heading string, stmts []cqlspec.Statement) {
	var b strings.Builder
	for i, st := range stmts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("-- " + st.Label() + "\n" + st.CQL() + "\n")
	}
	page.WriteString("\n\n### " + heading + "\n\n```sql\n" + strings.TrimRight(b.String(), "\n") + "\n```")
}

// entityStatements is the text of the Statements section for e's tables
// and index reads, which depends on e's model alone.
func entityStatements(e *model.Entity) []byte {
	var b strings.Builder
	for _, t := range e.Tables {
		listing(&b, fmt.Sprintf("`%s` (%s.%s)", t.Name, e.GoName, t.Method), t.Rendered())
	}
	for _, ix := range e.ReadIndexes() {
		if s := ix.Spec(); s != nil {
			listing(&b, fmt.Sprintf("`%s` through index `%s` (%s.%s)", ix.On.Name, ix.Name, e.GoName, ix.Method), cqlspec.Render(s))
		}
	}
	for _, f := range e.Filters {
		if s := f.Spec(); s != nil {
			var names []string
			for _, c := range f.Conds {
				if c.Index != nil {
					names = append(names, "`"+c.Index.Name+"`")
				}
			}
			listing(&b, fmt.Sprintf("`%s` through indexes %s (%s.%s)", f.On.Name, strings.Join(names, ", "), e.GoName, f.Method), cqlspec.Render(s))
		}
	}
	return []byte(b.String())
}

// Cache keeps an entity's part of the page from one run to the next: Get
// returns what Put stored for an entity of the same model. A nil Cache is
// none. The part is the entity's sections (entityPart), whose first says
// what else they were rendered from: the verdicts of the entity's tables
// (validation's) and whether the package is drawn a diagram an entity.
// A part whose first differs from this run's is rendered again.
type Cache interface {
	Get(e *model.Entity) ([][]byte, bool)
	Put(e *model.Entity, part [][]byte)
}

// The sections of an entity's part of the page.
const (
	partCheck      = iota // entityCheck: what the part depends on beyond the entity's model
	partTables            // its rows of the access patterns
	partIndexes           // of the indexes
	partOptions           // of the table options
	partFanOut            // its row of the fan-out
	partReaders           // its rows of the other readers
	partDiagram           // its diagram, when the package has one an entity
	partStatements        // its statements (entityStatements)
	partCosts             // the rows of its table of what a write costs
	partFlags             // flagStatics, flagScans
	entityParts
)

const (
	flagStatics = 's' // some table of the entity's readers has static columns
	flagScans   = 'c' // some table of the entity has the table option scan
)

// entityCheck is what e's part is rendered from beyond e's model: its
// tables' verdicts, and whether the package is drawn a diagram an entity.
func entityCheck(e *model.Entity, verdicts map[*model.Table][]model.Verdict, perEntity bool) []byte {
	b := []byte{'1'}
	if !perEntity {
		b[0] = '0'
	}
	for _, t := range e.Tables {
		b = append(b, '\n')
		for _, v := range verdicts[t] {
			b = append(b, v.Code...)
			if v.Error {
				b = append(b, " error"...)
			}
			b = append(b, 0)
			b = append(b, v.Silenced...)
			b = append(b, 0)
		}
	}
	return b
}

// entityView is an entity's part of the page, for the template
// schema.md.entity, which closes each section with End.
type entityView struct {
	Tables  []reviewTable
	Indexes []reviewIndex
	Options []reviewOption
	FanOut  reviewEntity
	Readers []reviewReader
	Costs   []cqlspec.Cost
	Diagram *reviewDiagram // nil when the package has one diagram
	Ends    *sectionEnds
}

// sectionEnds notes where each section of an entity's part ends in out.
type sectionEnds struct {
	out  *bytes.Buffer
	ends []int
}

// End notes where a section ends.
func (s *sectionEnds) End() string {
	s.ends = append(s.ends, s.out.Len())
	return ""
}

// entityPart renders e's sections of the page, in one execution of
// schema.md.entity.
func entityPart(e *model.Entity, verdicts map[*model.Table][]model.Verdict, perEntity bool, check []byte) ([][]byte, error) {
	var out bytes.Buffer
	v := entityView{Ends: &sectionEnds{out: &out, ends: make([]int, 0, 8)}}
	var names []string
	var flags []byte
	for _, t := range e.Tables {
		name := "`" + t.Name + "`"
		if t.Deprecated {
			name += " (deprecated)"
		}
		names = append(names, name)
		v.Tables = append(v.Tables, reviewRow(e, t, verdicts))
		if t.Spec().Scanned && !slices.Contains(flags, flagScans) {
			flags = append(flags, flagScans)
		}
	}
	for _, ix := range e.ReadIndexes() {
		if !ix.Declares() {
			continue // listed under the index it reads through
		}
		for _, r := range ix.IndexReads() {
			if r.On != nil {
				v.Indexes = append(v.Indexes, reviewIndexRow(r))
			}
		}
	}
	for _, f := range e.Filters {
		if f.On != nil {
			v.Indexes = append(v.Indexes, reviewFilterRow(f))
		}
	}
	v.FanOut = reviewEntity{Name: e.GoName, Canonical: e.Canonical.Name, Tables: strings.Join(names, ", ")}
	if len(names) > 1 {
		v.FanOut.Tables += fmt.Sprintf(" (%d tables)", len(names))
	}
	if e.Transactional {
		v.FanOut.Tables += ", in one transaction"
	}
	v.Options = reviewOptions(e.Tables)
	v.Readers = reviewReaders(e)
	if slices.ContainsFunc(v.Readers, func(r reviewReader) bool { return r.static }) {
		flags = append(flags, flagStatics)
	}
	v.Costs = cqlspec.Costs(e.CostShape())
	if perEntity {
		d := diagram(e.GoName, []*model.Entity{e}, verdicts)
		v.Diagram = &d
	}
	if err := templates.Execute(&out, "schema.md.entity", v); err != nil {
		return nil, err
	}
	sections := []int{partTables, partIndexes, partOptions, partFanOut, partReaders, partCosts, partDiagram}
	ends := v.Ends.ends
	if len(ends) != len(sections) {
		return nil, fmt.Errorf("rendering schema.md.entity: %d sections, want %d", len(ends), len(sections))
	}
	part := make([][]byte, entityParts)
	part[partCheck] = check
	b, start := out.Bytes(), 0
	for i, end := range ends {
		part[sections[i]] = b[start:end:end]
		start = end
	}
	part[partStatements] = entityStatements(e)
	part[partFlags] = flags
	return part, nil
}

type reviewTable struct {
	Pattern, Name, PartitionKey, Clustering, TTL, Bucket, Size, Verdict string
}

type reviewEntity struct {
	Name, Canonical, Tables string
}

// Review renders schema.md, the page a reviewer reads in a pull request:
// the access-pattern table with partition estimates and verdicts, the
// fan-out of each entity, and Mermaid diagrams of tables, indexes and
// patterns (see diagram).
func Review(p *model.Package, verdicts map[*model.Table][]model.Verdict) ([]byte, error) {
	return ReviewCached(p, verdicts, nil)
}

// ReviewCached is Review taking each entity's part of the page from c
// when it has it, and putting there those it renders. The page is the
// same.
func ReviewCached(p *model.Package, verdicts map[*model.Table][]model.Verdict, c Cache) ([]byte, error) {
	v := reviewView{Package: p.Path, Limit: DiagramLimit}
	perEntity := diagramNodes(p) > DiagramLimit
	parts := make([][][]byte, len(p.Entities))
	for i, e := range p.Entities {
		var check []byte
		var part [][]byte
		ok := false
		if c != nil {
			check = entityCheck(e, verdicts, perEntity)
			part, ok = c.Get(e)
			ok = ok && len(part) == entityParts && bytes.Equal(part[partCheck], check)
		}
		if !ok {
			var err error
			if part, err = entityPart(e, verdicts, perEntity, check); err != nil {
				return nil, err
			}
			if c != nil {
				c.Put(e, part)
			}
		}
		parts[i] = part
		v.Statics = v.Statics || bytes.IndexByte(part[partFlags], flagStatics) >= 0
		v.Scans = v.Scans || bytes.IndexByte(part[partFlags], flagScans) >= 0
		if e.Transactional {
			v.Transactions = append(v.Transactions, transaction(e))
		}
		v.Costs = addCosts(v.Costs, e.GoName, part[partCosts])
	}
	// Each section of the page: the entities' parts of it, in order.
	join := func(section int) string {
		n := 0
		for _, part := range parts {
			n += len(part[section])
		}
		var b strings.Builder
		b.Grow(n)
		for _, part := range parts {
			b.Write(part[section])
		}
		return b.String()
	}
	v.Tables, v.Indexes, v.Options = join(partTables), join(partIndexes), join(partOptions)
	v.Entities, v.Readers, v.Statements = join(partFanOut), join(partReaders), join(partStatements)
	if perEntity {
		v.Diagrams, v.Several = join(partDiagram), len(p.Entities) > 1
	} else {
		var d strings.Builder
		if err := templates.Execute(&d, "schema.md.diagram", diagram("", p.Entities, verdicts)); err != nil {
			return nil, err
		}
		v.Diagrams = d.String()
	}
	return templates.Render("schema.md.tmpl", v)
}

func reviewRow(e *model.Entity, t *model.Table, verdicts map[*model.Table][]model.Verdict) reviewTable {
	r := reviewTable{
		Pattern: fmt.Sprintf("%s.%s: %s", e.GoName, t.Method, strings.TrimRight(t.Doc, ".")),
		Name:    t.Name,
		TTL:     "—",
		Bucket:  "—",
	}
	var pk, ck []string
	for _, c := range t.PartitionKey() {
		pk = append(pk, c.Name)
	}
	for _, c := range t.Clustering() {
		arrow := "↑"
		if c.Desc {
			arrow = "↓"
		}
		ck = append(ck, c.Name+" "+arrow)
	}
	r.PartitionKey = strings.Join(pk, ", ")
	r.Clustering = strings.Join(ck, ", ")
	if r.Clustering == "" {
		r.Clustering = "—"
	}
	if t.TTL > 0 {
		r.TTL = model.HumanDuration(t.TTL)
	}
	if b := t.Bucket; b != nil {
		r.Bucket = "`" + b.Column + " = " + b.Expr() + "`"
	}
	est := t.Estimate()
	switch {
	case est.Unbounded:
		r.Size = "unbounded"
	case !est.Known:
		r.Size = "unknown"
	case est.Rows == 1:
		r.Size = "1 row, ≈" + model.HumanBytes(est.Bytes)
	default:
		r.Size = fmt.Sprintf("≈%s rows, ≈%s", model.HumanCount(est.Rows), model.HumanBytes(est.Bytes))
	}
	var found []string
	for _, v := range verdicts[t] {
		switch {
		case v.Silenced != "":
			found = append(found, fmt.Sprintf("🔇 %s silenced: %s", v.Code, v.Silenced))
		case v.Error:
			found = append(found, "❌ "+v.Code)
		default:
			found = append(found, "⚠️ "+v.Code)
		}
	}
	r.Verdict = "✅ accepted"
	if len(found) > 0 {
		r.Verdict = strings.Join(found, "; ")
	}
	if !est.Known && r.Verdict == "✅ accepted" {
		r.Verdict = "✅ bounded by TTL or bucket; size not estimated"
	}
	if t.Sparse() {
		r.Pattern += " (only where `" + t.WhereWords() + "`)"
	}
	if t.Unique {
		r.Pattern += " (unique key)"
	}
	if t.Deprecated {
		r.Pattern += " (**deprecated**"
		if t.ReplacedBy != nil {
			r.Pattern += ", replaced by `" + t.ReplacedBy.Name + "`"
		}
		r.Pattern += ")"
	}
	r.Pattern = strings.ReplaceAll(r.Pattern, "|", "\\|")
	r.Verdict = strings.ReplaceAll(r.Verdict, "|", "\\|")
	return r
}

// reviewReader is a table holding columns or rows that only the write
// protocol gives meaning to, and what any other reader of the table (cqlsh,
// an analytics job, another service, change data capture) must do about
// them.
type reviewReader struct {
	Table, Columns, Rule string // Rule: the rows to skip
	static               bool
}

// reviewReaders lists e's tables with bookkeeping: a canonical table's
// graves and version columns, a unique table's claims.
func reviewReaders(e *model.Entity) []reviewReader {
	var out []reviewReader
	for _, t := range e.Tables {
		var cols []string
		var grave, claim, static bool
		for _, c := range t.Columns {
			switch c.Kind {
			case model.Static:
				static = true
				continue
			case model.PartitionKey, model.Clustering, model.Regular:
				continue
			case model.Deleted:
				grave = true
			case model.Claim:
				claim = true
			}
			cols = append(cols, "`"+c.Name+"`")
		}
		if len(cols) == 0 {
			continue
		}
		var rules []string
		switch {
		case e.Transactional:
			// Written by transactions: a delete removes the row, and
			// a claim lands with its owner's change or not at all.
			rules = append(rules, "none written by the transactional mode")
		case grave:
			rules = append(rules, fmt.Sprintf("graves: `%s = true`, kept %s", cqlspec.DeletedColumn, model.HumanDuration(t.GraveTTL())))
		case claim:
			rules = append(rules, fmt.Sprintf("claims left by a failed write: confirm each in `%s`", e.Canonical.Name))
		}
		if static {
			// Once its rows are gone (the graves expired), a partition's
			// statics read as one row, its clustering columns null.
			rules = append(rules, fmt.Sprintf("a partition's statics alone: `%s` null", t.Clustering()[0].Name))
		}
		rule := strings.Join(rules, "; ")
		if rule == "" {
			rule = "—"
		}
		out = append(out, reviewReader{Table: t.Name, Columns: strings.Join(cols, ", "), Rule: rule, static: static})
	}
	return out
}

// reviewCosts is the table of what the writes of one or more entities
// cost: entities whose writes cost the same share one.
type reviewCosts struct {
	Entity string // their names, joined by commas
	Rows   string // its rows (schema.md.costs); "" for an entity without writes
}

// addCosts adds entity's rows to list, to the table of the same rows or
// to a new one.
func addCosts(list []reviewCosts, entity string, rows []byte) []reviewCosts {
	if len(rows) == 0 {
		return list
	}
	for i := range list {
		if list[i].Rows == string(rows) {
			list[i].Entity += ", " + entity
			return list
		}
	}
	return append(list, reviewCosts{Entity: entity, Rows: string(rows)})
}
