package cqltest

import (
	"errors"
	"fmt"

	"github.com/gocql/gocql"
)

// requestError is an error Cassandra would return: it implements
// gocql.RequestError with the protocol's error code (syntax error,
// invalid request, protocol error), and its message is Cassandra's where
// this package knows it. Errors that say "cqltest:" are limits of this
// package instead: a statement it does not support.
type requestError struct {
	code int
	msg  string
}

func (e *requestError) Code() int       { return e.code }
func (e *requestError) Message() string { return e.msg }
func (e *requestError) Error() string   { return e.msg }

var _ gocql.RequestError = (*requestError)(nil)

// invalidf is an InvalidRequest error.
func invalidf(format string, args ...any) error {
	return &requestError{code: gocql.ErrCodeInvalid, msg: fmt.Sprintf(format, args...)}
}

// syntaxError is a SyntaxException.
func syntaxError(err error) error {
	return &requestError{code: gocql.ErrCodeSyntax, msg: err.Error()}
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
	var re *requestError
	var ue *unsupportedError
	if err == nil || errors.As(err, &re) || errors.As(err, &ue) {
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
// err stands for a generic error. The caller sees err itself, unwrapped.
func LostReply(err error) error {
	if err == nil {
		err = errReplyLost
	}
	return &lostReply{err: err}
}
