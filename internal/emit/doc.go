// Package emit is the generator's Go emitter: it renders a validated model
// into cqlgen_gen.go, the typed repositories, built with jennifer. The
// other outputs have packages of their own: cqlschema (schema.cql) and
// review (schema.md).
package emit
