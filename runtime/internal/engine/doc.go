// Package engine is the implementation of cqlgen's runtime below the
// repositories: the Session over a Driver (NewSession), its retries and
// observation, repository calls (StartCall), writes through a strategy
// (Apply, ApplyOne), idempotency keys (Idempotent), conditional writes
// (CAS) and counter updates (ExecCounter).
//
// It is internal: generated code reaches it through runtime/cqlgenimpl,
// driver adapters through runtime/cqladapter (NewSession); users see its
// options, errors and observations in runtime/cqlgen.
package engine
