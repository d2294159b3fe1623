package cqltest

import (
	"errors"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// requestError is an error Cassandra would return: it has the methods of
// both gocql drivers' RequestError interface (Code, Message, Error), with
// the protocol's error code (syntax error,
// invalid request, protocol error), and its message is Cassandra's where
// this package knows it. Errors that say "cqltest:" are limits of this
// package instead: a statement it does not support.
//
// The session never returns one bare: serverError wraps it in the
// *cqldriver.DriverError a driver adapter would make of it, since the
// runtime reads error codes from those alone.
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Code() int       { return e.code }
func (e *requestError) Message() string { return e.msg }
func (e *requestError) Error() string   { return e.msg }

// serverError is an error Cassandra replies with, as the runtime receives
// it from a driver: a server error with the protocol's code, whose chain
// holds the requestError, which errors.As finds as either driver's
// RequestError.
func serverError(code int, msg string) error {
	return &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: code, Err: &requestError{code: code, msg: msg}}
}

// invalidf is an InvalidRequest error.
func invalidf(format string, args ...any) error {
	return serverError(cqldriver.CodeInvalid, fmt.Sprintf(format, args...))
}

// syntaxError is a SyntaxException.
func syntaxError(err error) error {
	return serverError(cqldriver.CodeSyntax, err.Error())
}

// protocolError is a ProtocolException: a paging state Cassandra cannot
// read, say.
func protocolError(msg string) error {
	return serverError(cqldriver.CodeProtocol, msg)
}

// isRequestError reports whether err is an error Cassandra would return.
func isRequestError(err error) bool {
	var re *requestError
	return errors.As(err, &re)
}

// unsupportedError reports CQL that Cassandra accepts but this package
// does not implement.
type unsupportedError struct{ what string }

func (e *unsupportedError) Error() string { return "cqltest: " + e.what + " is not supported" }

func unsupportedf(format string, args ...any) error {
	return &unsupportedError{what: fmt.Sprintf(format, args...)}
}

// asStatementError classifies an error from parsing a statement: plain
// errors are the parser's, syntax errors.
func asStatementError(err error) error {
	var ue *unsupportedError
	if err == nil || isRequestError(err) || errors.As(err, &ue) {
		return err
	}
	return syntaxError(err)
}

// lostReply marks a hook's error as coming after the call applied.
type lostReply struct{ err error }

func (l *lostReply) Error() string { return "cqltest: reply lost: " + l.err.Error() }
func (l *lostReply) Unwrap() error { return l.err }

// errReplyLost is what a call whose reply was lost returns when the hook
// gave no error of its own.
var errReplyLost = errors.New("cqltest: the statement applied but its reply was lost")

// LostReply wraps err so that a Hook returning it lets the call apply and
// then fails it with err, as when the coordinator applied a write but the
// reply never reached the client (a timeout, a broken connection). A nil
// err stands for a generic error. The caller sees err itself, unwrapped
// (classified, if it is one of gocql's: see Hook).
func LostReply(err error) error {
	if err == nil {
		err = errReplyLost
	}
	return &lostReply{err: err}
}

// classified is a hook's error as the session returns it: a driver's
// errors (gocql's *RequestErrWriteTimeout, ErrNoConnections...) classified
// in a *cqldriver.DriverError as the adapter of that driver, linked into
// the program, classifies them (cqldriver.Classify), so that the runtime
// decides retries and outcomes as it would on a cluster; any other error
// as it is, the very value the hook returned.
func classified(err error) error { return cqldriver.Classify(err) }
