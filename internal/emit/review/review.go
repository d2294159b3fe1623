// Package review emits schema.md, the review page of a package's model:
// its access patterns with partition estimates and verdicts, indexes,
// table options, fan-out, what other readers must skip, every statement
// the repository can send, and Mermaid diagrams, rendered through
// templates/schema.md.tmpl.
package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/templates"
)

type reviewView struct {
	Package  string
	Tables   []reviewTable
	Entities []reviewEntity
	Indexes  []reviewIndex
	Options  []reviewOption
	Readers  []reviewReader
	Statics  bool // some table of Readers has static columns
	Diagrams []reviewDiagram
	// Costs lists, per entity, what each write method sends.
	Costs []reviewCosts
	Limit int // DiagramLimit, which the page states when it splits
	// Statements holds, per entity, the text of the Statements section
	// for its tables and index reads (entityStatements): every statement
	// the repository can send, rendered as the runtime renders them.
	Statements []string
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

// Cache keeps the parts of the page that depend on one entity's model
// alone (today its statements), from one run to the next: Get returns
// what Put stored for an entity of the same model. A nil Cache is none.
type Cache interface {
	Get(e *model.Entity) ([]byte, bool)
	Put(e *model.Entity, part []byte)
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
// patterns (see diagrams).
func Review(p *model.Package, verdicts map[*model.Table][]model.Verdict) ([]byte, error) {
	return ReviewCached(p, verdicts, nil)
}

// ReviewCached is Review taking each entity's statements from c when it
// has them, and putting there those it renders. The page is the same.
func ReviewCached(p *model.Package, verdicts map[*model.Table][]model.Verdict, c Cache) ([]byte, error) {
	v := reviewView{Package: p.Path, Limit: DiagramLimit}
	for _, e := range p.Entities {
		re := reviewEntity{Name: e.GoName, Canonical: e.Canonical.Name}
		var names []string
		for _, t := range e.Tables {
			name := "`" + t.Name + "`"
			if t.Deprecated {
				name += " (deprecated)"
			}
			names = append(names, name)
			v.Tables = append(v.Tables, reviewRow(e, t, verdicts))
			v.Scans = v.Scans || t.Spec().Scanned
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
		var stmts []byte
		ok := false
		if c != nil {
			stmts, ok = c.Get(e)
		}
		if !ok {
			stmts = entityStatements(e)
			if c != nil {
				c.Put(e, stmts)
			}
		}
		if len(stmts) > 0 {
			v.Statements = append(v.Statements, string(stmts))
		}
		re.Tables = strings.Join(names, ", ")
		if len(names) > 1 {
			re.Tables += fmt.Sprintf(" (%d tables)", len(names))
		}
		if e.Transactional {
			re.Tables += ", in one transaction"
			v.Transactions = append(v.Transactions, transaction(e))
		}
		v.Entities = append(v.Entities, re)
		v.Costs = addCosts(v.Costs, costs(e))
	}
	v.Options = reviewOptions(p)
	v.Readers = reviewReaders(p)
	for _, r := range v.Readers {
		v.Statics = v.Statics || r.static
	}
	v.Diagrams = diagrams(p, verdicts)
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

// reviewReaders lists the tables with bookkeeping: a canonical table's
// graves and version columns, a unique table's claims.
func reviewReaders(p *model.Package) []reviewReader {
	var out []reviewReader
	for _, e := range p.Entities {
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
	}
	return out
}

// reviewCosts is the table of what the writes of one or more entities
// cost: entities whose writes cost the same share one.
type reviewCosts struct {
	Entity string // their names, joined by commas
	Rows   []cqlspec.Cost
}

// addCosts adds c to list, or its entity to the table of the same costs.
func addCosts(list []reviewCosts, c reviewCosts) []reviewCosts {
	if len(c.Rows) == 0 {
		return list
	}
	for i := range list {
		if slices.Equal(list[i].Rows, c.Rows) {
			list[i].Entity += ", " + c.Entity
			return list
		}
	}
	return append(list, c)
}

// costs derives what e's writes send from its tables' descriptions, as
// the runtime writes them (cqlspec.Costs).
func costs(e *model.Entity) reviewCosts {
	return reviewCosts{Entity: e.GoName, Rows: cqlspec.Costs(e.CostShape())}
}
