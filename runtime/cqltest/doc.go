// Package cqltest is an in-memory Cassandra for tests: a cqlgen.Session
// that runs the CQL generated repositories and the runtime send, with
// Apache Cassandra 5.0's semantics, and no server.
//
//	import _ "github.com/cqlgen/cqlgen/runtime/gocqlv1" // the driver's codec
//
//	s, err := cqltest.New(schemaCQL, cqltest.WithClock(clock))
//	repo := music.NewTrackRepo(s)
//
// It is meant to be strict: a statement Cassandra would refuse is refused
// with Cassandra's message, values bound in the wrong order or for the
// wrong type fail or read back wrong, and what a read returns follows
// from the write timestamps as on a cluster. Errors that start with
// "cqltest:" are limits of this package: CQL that Cassandra accepts but
// this package does not implement.
//
// It stands for Cassandra behind either driver the runtime supports, and
// imports neither: values are encoded and decoded by cqldriver.Marshal and
// cqldriver.Unmarshal, with the codec of the adapter the program links
// (github.com/cqlgen/cqlgen/runtime/gocqlv1 for gocql v1, the module
// github.com/cqlgen/cqlgen/runtime/gocqlv2 for the ASF driver v2), which
// a test imports, blank if need be; New fails, saying so, when there is
// none. This keeps cqltest light: a v2 program's tests link no gocql v1,
// and a v1 program's no v2. A refusal is a *cqldriver.DriverError of kind
// cqldriver.ErrorServer with the protocol's error code
// (cqldriver.CodeInvalid, cqldriver.CodeSyntax, cqldriver.CodeProtocol),
// as the adapters report Cassandra's errors, so that the runtime's retry
// and outcome decisions see what they would see on a cluster; the error
// it wraps has Code and Message, and errors.As finds it as either
// driver's RequestError.
//
// # Schema
//
// New reads CREATE TYPE, CREATE TABLE and CREATE [CUSTOM] INDEX; CREATE
// KEYSPACE and USE are accepted and ignored. Columns may be of any native
// type; of list, set and map, frozen or not; of user-defined types, frozen
// or not, nested and inside collections (a non-frozen UDT is kept as one
// cell: two whole writes at one timestamp do not merge field by field, and
// a field cannot be set alone); counter, in a counter table (every column
// outside the key a counter, no default_time_to_live, as Cassandra
// requires); and vector<float, n>, stored, read and searched (ANN, below). MASKED
// WITH is accepted and does nothing: reads return what a user allowed to
// UNMASK sees. Tuples are not supported.
//
// # Statements
//
// INSERT INTO t (c, ...) VALUES (?, ...) [IF NOT EXISTS] [USING TTL ? [AND
// TIMESTAMP ?]]; UPDATE t [USING ...] SET c = ?, ... WHERE k = ? AND ...
// [IF EXISTS | IF c = ? AND ...]; DELETE [c, ...] FROM t [USING TIMESTAMP
// ?] WHERE ... [IF ...]; SELECT c, ..., writetime(c), ttl(c) | * FROM t
// WHERE pk = ? AND ... [AND ck = ? ...] [AND ck op ? ...] [PER PARTITION
// LIMIT ?] [LIMIT ?]; and scans, SELECT c, ..., writetime(c), ttl(c) | * FROM t
// [WHERE token(pk, ...) > ? AND token(pk, ...) <= ?] [PER PARTITION LIMIT
// ?]. Values are ? markers, or literals: strings, numbers, booleans and
// null. A SELECT must restrict the whole partition
// key with =, or its token, or nothing; its last partition key column may
// take IN ? instead, one marker bound to a list (a multi-get: each
// partition in the list's order, in one page); clustering columns take = on a
// prefix, then at most one lower and one upper bound (<, <=, >, >=) on the
// next one, as Cassandra allows; a bound may be a multi-column slice on
// the clustering columns from there, (a, b) > (?, ?), which compares
// values column by column whatever the clustering orders, as Cassandra's
// does. A scan's token() names the partition key
// columns in order and takes at most one lower (>, >=) and one upper (<,
// <=) bound, bigint tokens or token(?, ...) of a partition key's values,
// with nothing else in the WHERE clause but restrictions on indexed
// columns. A column with an index (CREATE [CUSTOM] INDEX, taken as a
// storage-attached index) may be restricted in a SELECT as SAI allows,
// whether the partition key is restricted or not: =, <, <=, >, >=,
// BETWEEN ? AND ? (Cassandra 6.0's, both ends inclusive), and CONTAINS
// on a set or list, several of them ANDed; a row without a value never matches, and the
// rows are filtered before the page size and PER PARTITION LIMIT count
// them. PER
// PARTITION LIMIT takes an int marker, [per_partition_limit], or an
// integer: each partition returns at most that many of the rows the
// SELECT matches, in clustering order; as in Cassandra, an unset value is
// no limit, and null or a value below 1 is refused with LIMIT's messages.
// LIMIT, alike, bounds a SELECT of one partition (not a scan nor a
// multi-get). A DELETE may name a clustering prefix (a range deletion) or
// none (a partition deletion).
//
// An ANN query, SELECT ..., similarity_f(v, ?) FROM t [WHERE ...] ORDER
// BY v ANN OF ? LIMIT ?, on a vector column with an index, returns the
// live rows the WHERE clause selects (one partition, or every one, each
// restricted as above) that hold a vector, nearest first by the index's
// similarity_function (cosine unless its options say dot_product or
// euclidean), up to LIMIT, in one page; similarity_cosine,
// similarity_dot_product and similarity_euclidean compute Cassandra 5.0's
// scores ((1+cos)/2, (1+a·b)/2, 1/(1+d²)) in float32. The search is
// exact where Cassandra's graph is approximate. A similarity function
// outside an ANN query is not supported.
//
// Not supported: IN elsewhere, ALLOW
// FILTERING, LIMIT over several partitions but in an ANN query, ORDER
// BY but ANN OF, token(...) = ?, collection element updates (c = c + ? on a
// collection), setting a UDT's field alone (u.f = ?), tuples, conditional
// batches.
//
// # Counters
//
// UPDATE t SET c = c + ?, d = d - ? WHERE <the whole primary key> adds to
// counters: an amount bound as a bigint; unset leaves the counter alone;
// null is refused. A counter never written reads as null, and a row with
// no counter written does not exist. Deleting a row (or its partition)
// hides its counters, and a later increment adds to the total from before
// the deletion, as a Cassandra 5.0 node does with its counter cache
// (reusing a deleted counter is undefined in Cassandra: do not rely on
// it); deleting a counter column alone is final, as its tombstone wins
// over later increments (Cassandra's reconciliation of counter cells). As in Cassandra, INSERT, SET c = ?, USING TTL, USING TIMESTAMP
// and conditions are refused on a counter table, and so are a counter
// update in a logged batch and counter and other updates in one batch.
// The runtime's counter path (a generated Add, which is never retried)
// reports a refusal as cqlgen.ErrCounterNotApplied and a hook's timeout
// as cqlgen.ErrOutcomeUnknown, as on a cluster.
//
// # Storage and time
//
// Values are marshaled with cqldriver.Marshal for the column's type (by
// the linked adapter's codec, protocol version 4) and validated as
// Cassandra validates what it receives; Scan unmarshals them with
// cqldriver.Unmarshal. The runtime's own values bind as the adapters bind
// them: cqldriver.Encoded as its bytes, a cqldriver.ValueMarshaler
// encoding itself, and a cqldriver.ValueUnmarshaler decodes itself in
// Scan. cqldriver.Unset (or either driver's UnsetValue) leaves a column
// untouched; nil writes a tombstone. Session.Rows and ExecCASMap decode
// values to Go types of no driver (see Rows). A user-defined type's value
// is stored as received, its sets and maps included (as a node returns
// them); UDTs order field by field, a null field first. A type with a
// collection field not declared frozen can only be used frozen, and a UDT
// field of a UDT must be frozen, as Cassandra requires. Each cell keeps its write timestamp:
// the highest wins; at equal timestamps a tombstone wins, then an expiring
// value, then the greater value. INSERT writes a row marker, UPDATE does
// not: a row exists while its marker or any of its cells is live. A
// deletion at ts shadows what was written at ts or before. Non-frozen
// collections are one cell per element, so two writes of a collection
// with the same timestamp merge, as in Cassandra.
//
// Statements without USING TIMESTAMP, and batches, take their timestamp
// from the session's clock (WithClock), as gocql's client-side timestamps
// would. TTLs (USING TTL, or the table's default_time_to_live) expire by
// that clock too, in whole seconds.
//
// # Lightweight transactions
//
// A conditional statement (IF ...) reads, checks and writes atomically. It
// is written at the timestamp of its Paxos ballot, taken from the clock
// and greater than every earlier ballot; USING TIMESTAMP is refused on it,
// as Cassandra does. An absent row compares as null. ExecCAS and
// ExecCASMap return the current values when it did not apply, as Cassandra
// does: none when the row does not exist; otherwise the columns of the
// condition, or every column for IF EXISTS and IF NOT EXISTS.
//
// # Reads and paging
//
// A SELECT returns at most Query.PageSize rows (DefaultPageSize when 0,
// every row for cqldriver.Unpaged) of the bound partition in clustering
// order, and a paging state to pass back in Query.PageState to continue
// after the last row. As Cassandra's,
// the state is returned whenever a page is full, even if nothing follows,
// unless the page reaches the PER PARTITION LIMIT; the limit holds across
// pages, the rows before the state's position counting towards it.
//
// A scan returns the rows of the partitions whose tokens are in range, in
// token order, then in clustering order within each partition, and pages
// across partitions the same way. Tokens are Murmur3Partitioner's: the
// partition key serialized as Cassandra serializes it (one column's value;
// for several, each value with a 2-byte length and a 0 byte), hashed with
// MurmurHash3 x64 128 as Cassandra computes it, tail bytes read as signed;
// the minimum token is moved to the maximum. As in Cassandra, the minimum
// token as a bound stands for the start of the ring (lower) or its end
// (upper), and a range whose start is above its end is empty. A partition
// holding only static values reads as one row of them, nulls elsewhere.
//
// # Failures
//
// WithHook runs a function before every call that can fail it before it
// applies, or, through LostReply, after it applied; Calls lists every call
// received, for tests that count queries. A hook may fail a call with a
// driver's errors, a *gocql.RequestErrWriteTimeout or
// gocql.ErrNoConnections say, of either driver: the call returns them
// classified, as the linked adapter would (cqldriver.Classify), and the
// runtime treats them as it would on a cluster. Any other error is
// returned as it is.
package cqltest
