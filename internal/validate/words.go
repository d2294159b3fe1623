package validate

// reserved are CQL's reserved keywords: Cassandra refuses them as unquoted
// identifiers. The list is Cassandra's own (reserved_keywords.txt), including
// CONSTRAINT, LENGTH and CHECK, which versions after 5.0 reserve: refusing
// them now keeps a schema valid across an upgrade.
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

// maxNameLength is the longest table or keyspace name every Cassandra
// version accepts.
const maxNameLength = 48

// Reserved reports whether word (lower case) is a CQL reserved keyword,
// which cqlgen refuses as a name; cqlgen import reports such a name as one
// that needs quoting.
func Reserved(word string) bool { return reserved[word] }
