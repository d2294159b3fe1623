package model

import (
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/internal/tag"
)

// maskCQL is the masking function a mask:"..." names, as the DDL writes
// it after MASKED WITH (mask_inner(1, 1)), or why it cannot mask a column
// of type t. Cassandra 5.0's functions: mask_default and mask_null fit
// every type, mask_hash blobs only (it returns a blob, the hash, and
// Cassandra attaches a mask only to a column of the type the mask
// returns, which the live node confirms: a text column is refused),
// mask_inner and mask_outer text only, and mask_replace a value of the
// column's own type.
func maskCQL(m *tag.Mask, t *Type) (string, string) {
	var args []string
	switch m.Name {
	case "hash":
		if t != nil && t.Name != "blob" {
			return "", "mask hash returns a blob, the hash of the value, and Cassandra attaches a mask only to a column of the type it returns: hash fits a blob column, and this one is of type " + t.String() + "; use default or null"
		}
	case "inner", "outer":
		if t != nil && !isText(t) {
			return "", "mask " + m.Name + " hides the characters of a text, and this column is of type " + t.String() + "; use default or null"
		}
		for _, a := range m.Args {
			n, err := strconv.Atoi(a.Text)
			if a.Quoted || err != nil || n < 0 {
				return "", "mask " + m.Name + "(begin, end) takes two counts of characters, at the beginning and at the end of the text, such as " + m.Name + "(1, 2); found " + quoteLiteral(a)
			}
			args = append(args, a.Text)
		}
	case "replace":
		a := m.Args[0]
		switch {
		case t == nil:
		case isText(t):
			if !a.Quoted {
				return "", "mask replace(value) on a text column takes a string: replace('****'); found " + quoteLiteral(a)
			}
		case isNumber(t):
			if _, err := strconv.ParseFloat(a.Text, 64); a.Quoted || err != nil {
				return "", "mask replace(value) on a column of type " + t.String() + " takes a number: replace(0); found " + quoteLiteral(a)
			}
		default:
			return "", "mask replace(value) takes a value of the column's type, text or a number; this column is of type " + t.String() + ": use default or null"
		}
		args = append(args, quoteLiteral(a))
	}
	return "mask_" + m.Name + "(" + strings.Join(args, ", ") + ")", ""
}

func isText(t *Type) bool { return t.Name == "text" || t.Name == "varchar" || t.Name == "ascii" }

func isNumber(t *Type) bool {
	switch t.Name {
	case "tinyint", "smallint", "int", "bigint", "varint", "float", "double", "decimal":
		return true
	}
	return false
}

// quoteLiteral writes a tag literal as CQL: a string in quotes, a quote
// in it doubled; a word or number as it is.
func quoteLiteral(a tag.Literal) string {
	if a.Quoted {
		return "'" + strings.ReplaceAll(a.Text, "'", "''") + "'"
	}
	return a.Text
}
