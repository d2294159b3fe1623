package base

import "errors"

// The sentinels of package cqlgen, defined here so that cqlobserve's
// ErrorType can name them without importing cqlgen (which imports
// cqlobserve for SessionOptions.Observer). cqlgen documents each.
var (
	ErrNotFound            = errors.New("cqlgen: not found")
	ErrNotApplied          = errors.New("cqlgen: conditional write not applied")
	ErrInvalidCursor       = errors.New("cqlgen: invalid cursor")
	ErrEmptyKey            = errors.New("cqlgen: empty key value")
	ErrBatchTooLarge       = errors.New("cqlgen: batch too large")
	ErrKeyChanged          = errors.New("cqlgen: Modify changed the key of the entity in its source of truth")
	ErrNilEntity           = errors.New("cqlgen: nil entity")
	ErrFenced              = errors.New("cqlgen: idempotency key taken over")
	ErrOutcomeUnknown      = errors.New("cqlgen: outcome unknown")
	ErrTooManyChanges      = errors.New("cqlgen: too many changes of the entity since the write to settle it")
	ErrInvalidLimit        = errors.New("cqlgen: invalid limit")
	ErrInvalidOption       = errors.New("cqlgen: invalid option")
	ErrRetriesExhausted    = errors.New("cqlgen: retries exhausted")
	ErrVectorDimension     = errors.New("cqlgen: vector of the wrong dimension")
	ErrIdempotencyConflict = errors.New("cqlgen: idempotency key reused with another payload")
	ErrCounterNotApplied   = errors.New("cqlgen: counter update not applied")
	ErrPending             = errors.New("cqlgen: unreadable pending record")
	ErrCrossPartition      = errors.New("cqlgen: unlogged batch across partitions")
	ErrDeletedSince        = errors.New("cqlgen: the change applied, and the entity has been deleted since")
)
