package model

import (
	"go/token"
	"unicode"
)

// EntityNames are the package-level Go identifiers generated code declares
// for an entity. The model computes them once, validation checks them for
// collisions, and the emitter only prints them.
type EntityNames struct {
	Repo    string // the repository type: TrackRepo
	NewRepo string // its constructor: NewTrackRepo
	Check   string // the partition key check of a whole entity: trackCheck
	// CheckKey checks only the source of truth's partition key: what a
	// Delete needs, the other tables' keys coming from the canonical row.
	CheckKey string
	Low      string // the entity's name with a lower-case first word: track
	Writes   string // the write protocol's description of the entity
	One      string // the description of an entity stored in one table, for its writes
	Merge    string // an Insert over a live entity: what it keeps
	Times    string // what GetTimes reads beside the entity: TrackTimes
}

// TableNames are the Go identifiers generated code declares for a table,
// each prefixed with its entity's Low name and the pattern's method name.
type TableNames struct {
	Var        string // the table's statements (*cqlgenimpl.Table)
	Row        string // binds an insert
	Key        string // the primary key values of an entity
	Clustering string // the clustering values of a row, for cursors
	Compare    string // orders rows as the clustering order does
	Scan       string // reads one row
	ScanState  string // reads a canonical row with its protocol columns
	State      string // binds the State statement
	Data       string // the canonical row's columns
	Change     string // binds the Change statement
	Remove     string // binds the Remove statement
	Settle     string // binds the Settle statement
	Holds      string // reports whether a sparse table holds an entity
	Options    string // the read method's options type (exported)
	Read       string // the static part of the read method's spec
	ScanMethod string // the full-table read of the table option scan (exported)
	// RowType is the Go type of the table's rows as reads return them:
	// the entity, or, for a table that stores only some of its columns,
	// a type of its own (exported), so that a partial row can never be
	// passed to Update as a whole entity.
	RowType string
}

// Ident is one identifier generated code declares at package level, or
// as a method of a repository (Recv set), and the declaration it comes
// from.
type Ident struct {
	Name string
	Recv string // the repository type, for a method
	Pos  token.Position
	What string // what it is, for diagnostics
	// Table is the pattern whose Go name the identifier derives from; nil
	// for an entity's own.
	Table *Table
}

func assignNames(p *Package) {
	for _, e := range p.Entities {
		low := LowerFirst(e.GoName)
		e.Names = EntityNames{Repo: e.GoName + "Repo", NewRepo: "New" + e.GoName + "Repo", Check: low + "Check", CheckKey: low + "CheckKey", Low: low,
			Writes: low + "Writes", Merge: low + "Merge", One: low + "One", Times: e.GoName + "Times"}
		for _, t := range e.Tables {
			v := low + t.Method
			t.Names = TableNames{
				Var: v, Row: v + "Row", Key: v + "Key", Clustering: v + "Clustering",
				Compare: v + "Compare", Scan: v + "Scan", ScanState: v + "ScanState",
				State: v + "State", Data: v + "Data", Change: v + "Change", Remove: v + "Remove", Settle: v + "Settle",
				Holds: v + "Holds", Read: v + "Read",
				Options: t.Method + "Options", ScanMethod: "Scan" + t.Method,
				RowType: e.GoName,
			}
			if t.Partial() {
				t.Names.RowType = t.Method + "Row"
			}
		}
		for _, ix := range e.Indexes {
			v := low + ix.Method
			ix.Names = IndexNames{Var: v, Key: v + "Key", Options: ix.Method + "Options"}
		}
		for _, f := range e.Filters {
			v := low + f.Method
			f.Names = IndexNames{Var: v, Key: v + "Key", Options: f.Method + "Options"}
		}
	}
}

// Idents lists every identifier the generated file of p declares, with
// the position of the declaration that causes it.
func (p *Package) Idents() []Ident {
	// Sized ahead (an estimate): thousands of identifiers at 200 patterns,
	// each a large struct, which growing the slice copied over and over.
	n := 0
	for _, e := range p.Entities {
		n += 16 + 12*len(e.Tables) + 4*len(e.Indexes)
	}
	ids := make([]Ident, 0, n)
	for _, e := range p.Entities {
		n := e.Names
		ids = append(ids,
			Ident{Name: n.Repo, Pos: e.Pos, What: "the repository type of " + e.GoName},
			Ident{Name: n.NewRepo, Pos: e.Pos, What: "the constructor of " + n.Repo},
			Ident{Name: n.Check, Pos: e.Pos, What: "the key check of " + e.GoName},
		)
		if len(e.Tables) > 1 {
			ids = append(ids, Ident{Name: n.CheckKey, Pos: e.Pos, What: "the canonical key check of " + e.GoName})
		}
		if e.Maintained() {
			ids = append(ids, Ident{Name: n.Writes, Pos: e.Pos, What: "the write protocol of " + e.GoName})
		}
		if e.Single() {
			ids = append(ids, Ident{Name: n.One, Pos: e.Pos, What: "the writes of " + e.GoName})
		}
		if e.Versioned() {
			ids = append(ids, Ident{Name: n.Merge, Pos: e.Pos, What: "the Insert merge of " + e.GoName})
		}
		methods := []string{"Insert", "Update", "Delete", "Get"}
		if e.Immutable {
			methods = []string{"Insert", "Delete", "Get"}
		}
		if e.Versioned() {
			methods = append(methods, "GetVersioned", "Modify")
		}
		if e.Canonical != nil && e.Canonical.HasGetMany() {
			methods = append(methods, "GetMany")
		}
		if e.Single() {
			methods = append(methods, "InsertIfAbsent")
		}
		if len(e.TimedFields()) > 0 {
			methods = append(methods, "GetTimes")
			ids = append(ids, Ident{Name: n.Times, Pos: e.Pos, What: "the type of what GetTimes reads beside " + e.GoName})
		}
		if e.Maintained() {
			methods = append(methods, "Entity", "Tables", "Verify", "Repair", "Backfill")
		}
		for _, m := range methods {
			ids = append(ids, Ident{Name: m, Recv: n.Repo, Pos: e.Pos, What: "the " + m + " method of " + n.Repo})
		}
		for _, t := range e.Tables {
			ids = append(ids, t.idents()...)
		}
		for _, ix := range e.Indexes {
			ids = append(ids, ix.idents()...)
		}
		for _, f := range e.Filters {
			ids = append(ids, f.idents()...)
		}
	}
	return ids
}

// LowerFirst lower-cases the first word of an identifier: Track becomes
// track, HTTPServer httpServer, ID id.
func LowerFirst(s string) string {
	r := []rune(s)
	i := 0
	for i < len(r) && unicode.IsUpper(r[i]) && (i == 0 || i+1 >= len(r) || unicode.IsUpper(r[i+1])) {
		r[i] = unicode.ToLower(r[i])
		i++
	}
	if i == 0 && len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}

// idents are the identifiers derived from one pattern's Go name.
func (t *Table) idents() []Ident {
	n, tn := t.Entity.Names, t.Names
	var ids []Ident
	add := func(name, recv, what string) {
		ids = append(ids, Ident{Name: name, Recv: recv, Pos: t.MethodPos, What: what, Table: t})
	}
	if t.HasRead() {
		add(t.Method, n.Repo, "the read method of pattern "+t.Name)
	}
	if t.Scan {
		add(tn.ScanMethod, n.Repo, "the scan method of pattern "+t.Name)
	}
	add(tn.Var, "", "the statements of "+t.Name)
	add(tn.Row, "", "the insert binding of "+t.Name)
	add(tn.Scan, "", "the row scanner of "+t.Name)
	if t.Entity.Maintained() && t.Entity.Canonical != t {
		add(tn.Key, "", "the primary key of "+t.Name)
	}
	if t.Entity.Canonical == t && t.Entity.Maintained() {
		names := []string{tn.ScanState, tn.State}
		if t.Entity.Versioned() {
			names = append(names, tn.Data, tn.Change, tn.Remove, tn.Settle)
		}
		for _, name := range names {
			add(name, "", "the write protocol's functions of "+t.Name)
		}
	}
	if t.Sparse() {
		add(tn.Holds, "", "the predicate of "+t.Name)
	}
	if t.Partial() && !t.Unique {
		add(tn.RowType, "", "the row type of "+t.Name)
	}
	if t.HasRead() && !t.ReadsOne() {
		add(tn.Options, "", "the options of read method "+t.Method)
		add(tn.Clustering, "", "the cursor key of "+t.Name)
		add(tn.Compare, "", "the row order of "+t.Name)
		add(tn.Read, "", "the read of "+t.Name)
	}
	return ids
}
