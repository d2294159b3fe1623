// Package reads reads pages of an access pattern (ReadSpecOf, ReadPageOf):
// one partition, hash buckets merged in clustering order, time buckets
// walked back; cursors, sealed or not, and the cursor after any row of
// a page, which PageOf records for cqlgen.Stream (base.Positions); index
// and ANN reads; the rows of many keys; the typed scan of a whole table.
// It stands on desc, value and base.
package reads
