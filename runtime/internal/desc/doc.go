// Package desc holds the descriptors the runtime's rooms work on: a
// table and its statements, wired from internal/cqlspec's Render slot by
// slot (Table, NewTable, the bound variants); an entity and its
// projections as the write protocol writes them (EntityOf, Entity,
// Projection, State, Change, Op) and what NewEntity derives from them;
// the plan of a transaction in the transactional mode (TxnEntity); and a
// call's options and observation (NewOptions, Observe). Reads, the write
// protocol and maintenance stand on it; it imports none of them.
package desc
