package helpdesk

import _ "embed" // for Schema

// Schema is the DDL of the package's tables: the schema.cql that cqlgen
// generated next to this file.
//
//go:embed schema.cql
var Schema string
