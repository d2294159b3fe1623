package validate

import "github.com/cqlgen/cqlgen/internal/cqlspec"

// maxNameLength is the longest table or keyspace name every Cassandra
// version accepts.
const maxNameLength = 48

// Reserved reports whether word (lower case) is a CQL reserved keyword,
// which cqlgen refuses as a name; cqlgen import reports such a name as one
// that needs quoting.
func Reserved(word string) bool { return cqlspec.Reserved(word) }
