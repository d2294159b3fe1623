package cqltest

import (
	"strings"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// parseCreateIndex reads the rest of CREATE [CUSTOM] INDEX, after its
// keywords: [IF NOT EXISTS] [name] ON table (column) [USING 'class']
// [WITH OPTIONS = {...}]. The
// table and its column must exist. The index itself is not modeled: a
// query that would need it (CONTAINS, a restriction on a regular column)
// is refused as an unsupported query, so a schema with indexes loads and
// everything else in it can be tested.
func parseCreateIndex(p *parser, tables map[string]*table) error {
	p.keywords("if", "not", "exists")
	if !p.keyword("on") {
		if _, err := p.name("an index name"); err != nil {
			return err
		}
		if err := p.expectKeyword("on"); err != nil {
			return err
		}
	}
	name, err := p.name("a table name")
	if err != nil {
		return err
	}
	t, ok := tables[name]
	if !ok {
		return invalidf("Table %s does not exist", name)
	}
	if err := p.expectPunct("("); err != nil {
		return err
	}
	// KEYS(m): the keys of a map, which a SELECT reads by CONTAINS KEY.
	keys := isCall(p, "keys")
	if keys {
		p.i += 2 // keys (
	}
	c, err := p.column(t)
	if err != nil {
		return err
	}
	if keys {
		if c.typ.kind != cqldriver.TypeMap || c.typ.frozen {
			return invalidf("Cannot create index on keys of column %s with non-map type", c.name)
		}
		if err := p.expectPunct(")"); err != nil {
			return err
		}
	}
	if err := p.expectPunct(")"); err != nil {
		return err
	}
	if p.keyword("using") {
		if tok := p.next(); tok.kind != tString {
			return p.errorf("expecting the index class as a string")
		}
	}
	if p.keyword("with") {
		// WITH OPTIONS = {...}: an analyzer, a vector's similarity
		// function; none changes what this package returns.
		if err := p.expectKeyword("options"); err != nil {
			return err
		}
		if err := p.expectPunct("="); err != nil {
			return err
		}
		start := p.i
		if err := skipOptionValue(p); err != nil {
			return err
		}
		if sim := similarityOption(p.toks[start:p.i]); sim != "" {
			if t.similarity == nil {
				t.similarity = map[*column]string{}
			}
			t.similarity[c] = sim
		}
	}
	if t.indexed == nil {
		t.indexed = map[*column]bool{}
		t.indexedKeys = map[*column]bool{}
	}
	if keys {
		t.indexedKeys[c] = true
	}
	t.indexed[c] = true
	return nil
}

// similarityOption is the value of 'similarity_function' in the tokens of
// an index's options, in lower case; empty when they do not name one.
func similarityOption(toks []token) string {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].kind == tString && strings.EqualFold(toks[i].text, "similarity_function") && toks[i+1].text == ":" && toks[i+2].kind == tString {
			return strings.ToLower(toks[i+2].text)
		}
	}
	return ""
}
