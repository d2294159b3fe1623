package cqldriver

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"
	"time"
)

// Consistency is a consistency level, by its code in the native protocol
// (both gocql drivers use the same codes, so adapters convert by value).
type Consistency uint16

// The consistency levels. Serial and LocalSerial are for the Paxos phase
// of conditional writes (Levels.Serial).
const (
	Any         Consistency = 0x00
	One         Consistency = 0x01
	Two         Consistency = 0x02
	Three       Consistency = 0x03
	Quorum      Consistency = 0x04
	All         Consistency = 0x05
	LocalQuorum Consistency = 0x06
	EachQuorum  Consistency = 0x07
	Serial      Consistency = 0x08
	LocalSerial Consistency = 0x09
	LocalOne    Consistency = 0x0A
)

var consistencyNames = [...]string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"}

// String is the level's name in CQL: LOCAL_QUORUM, say.
func (c Consistency) String() string {
	if int(c) < len(consistencyNames) {
		return consistencyNames[c]
	}
	return "CONSISTENCY(" + strconv.Itoa(int(c)) + ")"
}

// IsSerial reports whether c is a serial level, Serial or LocalSerial.
func (c Consistency) IsSerial() bool { return c == Serial || c == LocalSerial }

// Driver is a Cassandra driver as Session uses it: it runs one request,
// retrying inside the driver as the request's hooks decide, and reports
// each attempt. Adapters implement it, one per driver:
// github.com/cqlgen/cqlgen/runtime/gocqlv1 for github.com/gocql/gocql and
// the module github.com/cqlgen/cqlgen/runtime/gocqlv2 for the ASF's
// github.com/apache/cassandra-gocql-driver/v2. Everything else (retry
// decisions and backoff, consistency per statement kind, batch size
// limits, observation, the write protocol) is the runtime's, the same
// whatever the driver.
//
// A Driver reports the errors of its driver as *DriverError, classified,
// so that the runtime's decisions do not depend on the driver's error
// types; the driver's own error stays reachable with errors.As.
type Driver interface {
	// Exec runs a statement that returns no rows.
	Exec(ctx context.Context, r *Request) error
	// Iter runs a read and returns one page of rows. A failed read
	// returns an iterator whose Close gives the error.
	Iter(ctx context.Context, r *Request) DriverIter
	// ScanCAS runs a conditional write. When it did not apply, dest
	// receives the row's current values.
	ScanCAS(ctx context.Context, r *Request, dest ...any) (applied bool, err error)
	// MapScanCAS runs a conditional write and puts the row it returns in
	// current, by column name, [applied] included. The statement's result
	// metadata must come with the reply (it depends on the row found).
	MapScanCAS(ctx context.Context, r *Request, current map[string]any) error
	// Batch runs statements as one batch.
	Batch(ctx context.Context, b *BatchRequest) error
	// RoutingKey is the keyspace and the routing key (the encoded
	// partition key) of a statement with its values, as the driver
	// computes them for token-aware routing; a nil key when the driver
	// cannot tell.
	RoutingKey(ctx context.Context, cql string, values []any) (keyspace string, key []byte, err error)
}

// DriverIter is one page of a read's rows.
type DriverIter interface {
	// Columns is how many columns the result has; 0 when the read failed
	// before any rows or metadata arrived.
	Columns() int
	Iter
}

// Request is one statement as the runtime sends it to a Driver.
type Request struct {
	CQL        string
	Values     []any // may hold Unset, Encoded and ValueMarshaler values
	Idempotent bool
	// Consistency is the level of the statement; SerialConsistency the
	// level of its Paxos phase, 0 unless it is conditional.
	Consistency, SerialConsistency Consistency
	// Paged marks a read: PageSize rows at most (0: the driver's
	// default; Unpaged: every row, in one reply) from PageState (nil: the first page), and no automatic
	// paging: the page is all Iter returns.
	Paged     bool
	PageSize  int
	PageState []byte
	// Hooks decide retries inside the driver and see each attempt; nil:
	// one attempt, unobserved.
	Hooks AttemptHooks
}

// BatchRequest is a batch as the runtime sends it to a Driver.
type BatchRequest struct {
	Logged bool
	// Queries are the batch's statements with their values (their
	// PageSize, PageState and SerialConsistency do not apply).
	Queries                        []Query
	Consistency, SerialConsistency Consistency
	Hooks                          AttemptHooks
}

// RetryType says how a driver retries a failed attempt.
type RetryType uint8

const (
	// Rethrow ends the request with the error.
	Rethrow RetryType = iota
	// Retry tries again on the same host.
	Retry
	// RetryNextHost tries again on the next host of the query plan.
	RetryNextHost
)

// AttemptHooks are how the session follows a request inside a driver:
// the adapter installs them as the driver's retry policy and observer.
type AttemptHooks interface {
	// Attempt is asked after a failed attempt, attempts being how many
	// the driver has made for this request: whether another may follow,
	// before RetryType chooses how. idempotent is the request's.
	Attempt(attempts int, idempotent bool) bool
	// RetryType is asked when Attempt allowed another attempt, with the
	// failed attempt's error as a *DriverError.
	RetryType(err error) RetryType
	// Observe reports one attempt, when the request is observed.
	Observe(ctx context.Context, a Attempt)
	// Observed reports whether Observe wants attempts at all.
	Observed() bool
}

// Attempt is what a driver reports of one attempt.
type Attempt struct {
	N          int // 0 for the first attempt of this request
	Start, End time.Time
	Err        error  // as a *DriverError
	Host       string // host:port of the coordinator, if known
	Keyspace   string
	Rows       int // rows of the page, for reads
}

// ErrorKind classifies a driver's error the same way for every driver.
type ErrorKind uint8

const (
	// ErrorOther is an error the adapter could not classify.
	ErrorOther ErrorKind = iota
	// ErrorServer is an error Cassandra replied with: DriverError.Code
	// says which.
	ErrorServer
	// ErrorNoConnections: no host could take the request; nothing was
	// sent.
	ErrorNoConnections
	// ErrorNoResponse: the request was sent and no reply came in time;
	// it may have applied.
	ErrorNoResponse
	// ErrorConnection: the connection failed or closed, or ran out of
	// streams, before a reply came; the request may have applied.
	ErrorConnection
	// ErrorSessionClosed: the session was closed.
	ErrorSessionClosed
	// ErrorNotSent: the driver refused the request before sending it,
	// such as a value it cannot encode for its column (gocql's
	// MarshalError); it did not apply.
	ErrorNotSent
)

var errorKindNames = [...]string{"other", "server", "no connections", "no response", "connection", "session closed", "not sent"}

func (k ErrorKind) String() string {
	if int(k) < len(errorKindNames) {
		return errorKindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Protocol error codes (the native protocol's), as DriverError.Code.
const (
	CodeServer          = 0x0000
	CodeProtocol        = 0x000A
	CodeCredentials     = 0x0100
	CodeUnavailable     = 0x1000
	CodeOverloaded      = 0x1001
	CodeBootstrapping   = 0x1002
	CodeTruncate        = 0x1003
	CodeWriteTimeout    = 0x1100
	CodeReadTimeout     = 0x1200
	CodeReadFailure     = 0x1300
	CodeFunctionFailure = 0x1400
	CodeWriteFailure    = 0x1500
	CodeCDCWriteFailure = 0x1600
	CodeCASWriteUnknown = 0x1700
	CodeSyntax          = 0x2000
	CodeUnauthorized    = 0x2100
	CodeInvalid         = 0x2200
	CodeConfig          = 0x2300
	CodeAlreadyExists   = 0x2400
	CodeUnprepared      = 0x2500
)

// DriverError is an error of a driver, classified by its adapter. Err is
// the driver's own error: errors.As still finds the driver's types.
type DriverError struct {
	Kind ErrorKind
	// Code is the protocol error code of a server error.
	Code int
	// WriteType is a write timeout's or write failure's write type
	// (SIMPLE, BATCH, BATCH_LOG, UNLOGGED_BATCH, COUNTER, CAS, VIEW, CDC).
	WriteType string
	Err       error
}

func (e *DriverError) Error() string { return e.Err.Error() }
func (e *DriverError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrSessionClosed) and the like hold for a
// classified error, whatever the driver.
func (e *DriverError) Is(target error) bool {
	switch target {
	case ErrNoConnections:
		return e.Kind == ErrorNoConnections
	case ErrNoResponse:
		return e.Kind == ErrorNoResponse
	case ErrSessionClosed:
		return e.Kind == ErrorSessionClosed
	}
	return false
}

// Errors that classified driver errors match with errors.Is.
var (
	ErrNoConnections = errors.New("cqlgen: no connections to any host")
	ErrNoResponse    = errors.New("cqlgen: no response in time")
	ErrSessionClosed = errors.New("cqlgen: session closed")
)

// driverError returns err's classification, or nil when err is not a
// *DriverError.
func driverError(err error) *DriverError {
	var d *DriverError
	if errors.As(err, &d) {
		return d
	}
	return nil
}

// ServerCode is the protocol error code of a server error in err's
// chain, and whether there is one.
func ServerCode(err error) (int, bool) {
	if d := driverError(err); d != nil && d.Kind == ErrorServer {
		return d.Code, true
	}
	return 0, false
}

// IsConnError recognises a broken connection below the driver: a reset, a
// closed pipe, an unexpected EOF, or any net.Error (which includes I/O
// timeouts).
func IsConnError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}
