package cqlspec

import "strings"

// Quote is how every statement cqlgen writes spells a column name: as
// it is when CQL reads it unquoted to the same name (a lower-case letter,
// then lower-case letters, digits and underscores, and not a reserved
// keyword), in double quotes otherwise ("from", "createdAt"). A name
// reaches here only if the model allows it: a name that needs quotes is
// the opt-in of db:"name,quoted", for the columns an existing table
// already has.
func Quote(name string) string {
	if !NeedsQuotes(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// NeedsQuotes reports whether CQL reads name only when quoted: a reserved
// keyword, or a name that is not Plain.
func NeedsQuotes(name string) bool { return Reserved(name) || !Plain(name) }

// Plain reports whether name is a plain CQL identifier, which CQL reads
// unquoted as itself unless it is a reserved keyword: a lower-case
// letter, then lower-case letters, digits and underscores.
func Plain(name string) bool { return identifier(name, false) }

// Quotable reports whether cqlgen can write name quoted, as db:"name,quoted"
// declares: letters of either case, digits and underscores, from a letter.
func Quotable(name string) bool { return identifier(name, true) }

func identifier(name string, upper bool) bool {
	letter := func(ch byte) bool { return ch >= 'a' && ch <= 'z' || upper && ch >= 'A' && ch <= 'Z' }
	if name == "" || !letter(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if ch := name[i]; !letter(ch) && !(ch >= '0' && ch <= '9') && ch != '_' {
			return false
		}
	}
	return true
}

// Reserved reports whether word, in lower case, is a CQL reserved
// keyword: Cassandra refuses it as an unquoted identifier.
func Reserved(word string) bool { return reserved[word] }

// reserved are CQL's reserved keywords. The list is Cassandra's own
// (reserved_keywords.txt), including CONSTRAINT, LENGTH and CHECK, which
// versions after 5.0 reserve: quoting them now keeps statements valid
// across an upgrade.
var reserved = map[string]bool{
	"add": true, "allow": true, "alter": true, "and": true, "apply": true, "asc": true,
	"authorize": true, "batch": true, "begin": true, "by": true, "check": true,
	"columnfamily": true, "constraint": true, "create": true, "delete": true, "desc": true,
	"describe": true, "drop": true, "entries": true, "execute": true, "from": true,
	"full": true, "grant": true, "if": true, "in": true, "index": true, "infinity": true,
	"insert": true, "into": true, "is": true, "keyspace": true, "length": true,
	"limit": true, "materialized": true, "modify": true, "nan": true, "norecursive": true,
	"not": true, "null": true, "of": true, "on": true, "or": true, "order": true,
	"primary": true, "rename": true, "revoke": true, "schema": true, "select": true,
	"set": true, "table": true, "to": true, "token": true, "truncate": true,
	"unlogged": true, "update": true, "use": true, "using": true, "view": true,
	"where": true, "with": true,
}
