package model

import (
	"go/token"

	"github.com/cqlgen/cqlgen/internal/load"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// tableOptions carries a pattern's table options over, with positions.
func tableOptions(tp *tag.Pattern, pos func(int) token.Position) TableOptions {
	o := TableOptions{
		GCGrace: tp.GCGrace, HasGCGrace: tp.HasGCGrace, GCGracePos: pos(tp.KeyOffs["gc_grace"]),
		Comment: tp.Comment, HasComment: tp.HasComment, CommentPos: pos(tp.KeyOffs["comment"]),
		CompactionPos: pos(tp.KeyOffs["compaction"]),
	}
	if c := tp.Compaction; c != nil {
		o.Compaction = &Compaction{Strategy: c.Strategy, WindowN: c.WindowN, WindowUnit: c.WindowUnit, WindowPos: pos(c.WindowOff)}
	}
	return o
}

// index builds an index pattern; its table is resolved once every table
// of the entity is built.
func (b *builder) index(e *Entity, lf *load.Field, tp *tag.Pattern, byColumn map[string]*Field) *Index {
	pos := func(off int) token.Position { return b.tagPos(lf, off) }
	ti := tp.Index
	if ti.Col.Name == "" {
		return nil // col could not be read: reported by the tag's parser
	}
	ix := &Index{
		Entity:      e,
		Name:        ti.Name.Name,
		Pos:         pos(ti.Name.Off),
		OnName:      ti.On.Name,
		OnPos:       pos(ti.On.Off),
		Column:      Ref{Name: ti.Col.Name, Pos: pos(ti.Col.Off), Field: byColumn[ti.Col.Name]},
		Range:       ti.Range,
		Keys:        ti.Keys,
		MatchPos:    pos(ti.MatchOff),
		ANN:         ti.ANN,
		Similarity:  ti.Similarity,
		Score:       ti.Score,
		ScorePos:    pos(ti.ScoreOff),
		Filter:      Ref{Name: ti.Filter.Name, Pos: pos(ti.Filter.Off), Field: byColumn[ti.Filter.Name]},
		FilterOp:    string(ti.FilterOp),
		IndexedRead: b.indexedRead(lf, tp, byColumn),
	}
	if ix.Score == "index" {
		ix.Score = ix.Similarity
	}
	if ti.On.Name == "" {
		ix.OnPos = ix.Pos
	}
	if tp.Name.Name == "" {
		ix.Method, ix.MethodPos = GoName(ix.Name), ix.Pos
	}
	return ix
}

// indexedRead reads what tp, an index or a filter pattern, declares of
// its read: the partition, the doc, the ignores and the method's name.
func (b *builder) indexedRead(lf *load.Field, tp *tag.Pattern, byColumn map[string]*Field) IndexedRead {
	pos := func(off int) token.Position { return b.tagPos(lf, off) }
	r := IndexedRead{PKPos: pos(tp.PKOff), Doc: tp.Doc, Method: tp.Name.Name, MethodPos: pos(tp.Name.Off)}
	for _, id := range tp.PK {
		r.PK = append(r.PK, Ref{Name: id.Name, Pos: pos(id.Off), Field: byColumn[id.Name]})
	}
	for _, ig := range tp.Ignores {
		r.Ignores = append(r.Ignores, Ignore{Code: ig.Code, Reason: ig.Reason, Pos: pos(ig.Off)})
	}
	return r
}

// resolveOn finds the table an index is on: the one on:"..." names, or
// the source of truth. It also words the pattern when the tag gives no doc.
func resolveOn(e *Entity, ix *Index) {
	ix.On = e.tableOn(ix.OnName)
	if ix.Doc == "" {
		ix.Doc = describeIndex(e, ix)
	}
}

// resolveANNFilter finds the index pattern an ANN read's filter:"column"
// goes through: the one on the same table and column, not an ANN one.
func resolveANNFilter(e *Entity, ix *Index) {
	if ix.Filter.Name == "" || ix.On == nil {
		return
	}
	for _, fx := range e.Indexes {
		if fx != ix && fx.On == ix.On && fx.Column.Name == ix.Filter.Name && !fx.ANN && !fx.Range {
			ix.FilterIndex = fx
		}
	}
}

// describeIndex words an index pattern when the tag gives no doc.
func describeIndex(e *Entity, ix *Index) string {
	what := e.GoName + " rows whose " + ix.Column.Name
	switch {
	case ix.Keys:
		what += " has a key"
	case ix.Contains():
		what += " contains a value"
	case ix.Range:
		what += " lies in a range"
	case ix.ANN:
		what = e.GoName + " rows whose " + ix.Column.Name + " is nearest a vector, by " + ix.Similarity + " similarity"
	default:
		what += " equals a value"
	}
	if len(ix.PK) > 0 {
		what += ", within one partition"
	}
	return what
}

// tableOn is the table an on:"name" names: the source of truth when name
// is empty, nil when no table of the entity has that name.
func (e *Entity) tableOn(name string) *Table {
	if name == "" {
		return e.Canonical
	}
	for _, t := range e.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}
