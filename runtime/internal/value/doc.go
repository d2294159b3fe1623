// Package value is what the runtime does with one value, over the one
// value package, runtime/cqldriver (Cassandra's order, Compare; the
// canonical encoding of sets and maps, Canonical): clustering values
// compared through their encoding (CompareAs), frozen collections bound
// canonical (Normalized), values compared as Cassandra stores them
// (SameEncoded), the scanners and unset helpers generated code binds,
// and a key value rendered for a report. It is the ground floor of the
// rooms under runtime/internal: it imports none of them.
package value
