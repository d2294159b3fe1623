package model

// The questions the emitters ask of the model, answered here so that each
// emitter prints what the model decided rather than deciding it again.

// ReadIndexes are e's index patterns that name one of its tables, in
// source order: the ones the repository reads through (the others are
// reported by validation, and generate nothing).
func (e *Entity) ReadIndexes() []*Index {
	var ixs []*Index
	for _, ix := range e.Indexes {
		if ix.On != nil {
			ixs = append(ixs, ix)
		}
	}
	return ixs
}

// ReadMethod is the repository method that serves t's access pattern: its
// read method, or Get where that already reads the pattern's one row.
func (t *Table) ReadMethod() string {
	if t.HasRead() {
		return t.Method
	}
	return "Get"
}
