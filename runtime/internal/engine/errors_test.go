package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Every typed error is found by errors.Is with its sentinel and by
// errors.As with its type, through layers of wrapping, and by no other
// sentinel.
func TestTypedErrors(t *testing.T) {
	sentinels := []error{
		cqlgen.ErrNotFound, cqlgen.ErrNotApplied, cqlgen.ErrInvalidCursor, cqlgen.ErrEmptyKey, cqlgen.ErrBatchTooLarge,
		cqlgen.ErrRetriesExhausted, cqlgen.ErrIdempotencyConflict, cqlgen.ErrCrossPartition, cqlgen.ErrInvalidLimit,
		cqlgen.ErrInvalidOption, cqlgen.ErrVectorDimension,
	}
	cause := writeTimeout("SIMPLE")
	for _, c := range []struct {
		err      error
		sentinel error
		as       func(error) bool
	}{
		{&cqlgen.NotAppliedError{Table: "t", Current: map[string]any{"v": 1}}, cqlgen.ErrNotApplied,
			func(err error) bool { var e *cqlgen.NotAppliedError; return errors.As(err, &e) && e.Current["v"] == 1 }},
		// Every refusal for what a call was given is one *InputError,
		// matched by the sentinel of its kind and no other.
		{&cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: "p", Reason: "r"}, cqlgen.ErrInvalidCursor, asInput(cqlgen.ErrInvalidCursor, "p")},
		{&cqlgen.InputError{Err: cqlgen.ErrEmptyKey, Table: "t", Name: "c"}, cqlgen.ErrEmptyKey, asInput(cqlgen.ErrEmptyKey, "c")},
		{&cqlgen.InputError{Err: cqlgen.ErrBatchTooLarge, Reason: "3 statements"}, cqlgen.ErrBatchTooLarge, asInput(cqlgen.ErrBatchTooLarge, "")},
		{&cqlgen.InputError{Err: cqlgen.ErrInvalidLimit, Reason: "-1"}, cqlgen.ErrInvalidLimit, asInput(cqlgen.ErrInvalidLimit, "")},
		{&cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "TTL"}, cqlgen.ErrInvalidOption, asInput(cqlgen.ErrInvalidOption, "TTL")},
		{&cqlgen.InputError{Err: cqlgen.ErrVectorDimension, Table: "t", Name: "v"}, cqlgen.ErrVectorDimension, asInput(cqlgen.ErrVectorDimension, "v")},
		{&cqlgen.RetriesExhaustedError{Attempts: 4, Last: cause}, cqlgen.ErrRetriesExhausted,
			func(err error) bool {
				var e *cqlgen.RetriesExhaustedError
				var wt *cqldriver.DriverError
				return errors.As(err, &e) && e.Attempts == 4 && errors.As(err, &wt) && errors.Is(err, cause)
			}},
		{&cqlgen.InputError{Err: cqlgen.ErrIdempotencyConflict, Name: `key "k"`}, cqlgen.ErrIdempotencyConflict, asInput(cqlgen.ErrIdempotencyConflict, `key "k"`)},
		{&cqlgen.InputError{Err: cqlgen.ErrCrossPartition, Reason: "a and b"}, cqlgen.ErrCrossPartition, asInput(cqlgen.ErrCrossPartition, "")},
		{cqlgen.ErrNotFound, cqlgen.ErrNotFound, func(error) bool { return true }},
	} {
		for _, err := range []error{c.err, fmt.Errorf("repo: %w", c.err), fmt.Errorf("a: %w", fmt.Errorf("b: %w", c.err))} {
			if !errors.Is(err, c.sentinel) {
				t.Errorf("%v: errors.Is(%v) is false", err, c.sentinel)
			}
			if !c.as(err) {
				t.Errorf("%v: errors.As finds no %T with its fields", err, c.err)
			}
			for _, s := range sentinels {
				if s != c.sentinel && errors.Is(err, s) {
					t.Errorf("%v: errors.Is(%v) is true", err, s)
				}
			}
			if err.Error() == "" {
				t.Errorf("%T has no message", c.err)
			}
		}
	}
}

func TestCASResultErr(t *testing.T) {
	if err := (CASResult{Applied: true, Table: "t"}).Err(); err != nil {
		t.Errorf("applied: Err() = %v", err)
	}
	err := CASResult{Table: "t", Current: map[string]any{"name": "x"}}.Err()
	var na *cqlgen.NotAppliedError
	if !errors.As(err, &na) || na.Table != "t" || na.Current["name"] != "x" {
		t.Errorf("not applied: Err() = %#v", err)
	}
}

// What a conditional write found in the row never leaks through the
// error's printing or its JSON: only the column names do.
func TestNotAppliedErrorRedactsValues(t *testing.T) {
	err := &cqlgen.NotAppliedError{Table: "users", Current: map[string]any{"email": "ann@example.com", "password_hash": "$2b$10$secret"}}
	var wrapped error = fmt.Errorf("sign up: %w", err)
	b, jerr := json.Marshal(err)
	for _, out := range []string{err.Error(), fmt.Sprint(err), fmt.Sprintf("%v", wrapped), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), string(b)} {
		if strings.Contains(out, "secret") || strings.Contains(out, "ann@") {
			t.Errorf("a value leaks: %s", out)
		}
	}
	if jerr != nil || !strings.Contains(string(b), "password_hash") || !strings.Contains(fmt.Sprintf("%#v", err), "email") {
		t.Errorf("the columns should show: %s, %v; %#v", b, jerr, err)
	}
	if err.Current["email"] != "ann@example.com" {
		t.Error("Current lost its values")
	}
}

// An outcome unknown says what happened: the reply lost, how many serial
// reads could not settle it and the last one's error; no deadline unless
// one passed.
func TestOutcomeUnknownSaysWhatHappened(t *testing.T) {
	read := errors.New("read timed out")
	we := &cqlgen.WriteUnknownError{Table: "tickets", Err: errors.New("EOF"), Reads: 5, Cause: read}
	ou := &cqlgen.OutcomeUnknownError{Key: "k", Outcome: we, Err: we}
	for _, want := range []string{`idempotency key "k"`, "tickets", "reply was lost (EOF)", "5 serial reads could not settle it", "read timed out"} {
		if !strings.Contains(ou.Error(), want) {
			t.Errorf("%q does not say %q", ou.Error(), want)
		}
	}
	if strings.Contains(ou.Error(), "deadline") {
		t.Errorf("%q speaks of a deadline that did not pass", ou.Error())
	}
	if !errors.Is(ou, cqlgen.ErrOutcomeUnknown) || !errors.Is(ou, read) || errors.Is(ou, cqlgen.ErrTooManyChanges) {
		t.Errorf("%v: errors.Is finds the wrong causes", ou)
	}
	over := &cqlgen.WriteUnknownError{Table: "tickets", Err: errors.New("EOF"), Reads: 1, Cause: fmt.Errorf("%w: more than 32", cqlgen.ErrTooManyChanges)}
	if !errors.Is(over, cqlgen.ErrTooManyChanges) || !strings.Contains(over.Error(), "the serial read that followed could not settle it") {
		t.Errorf("%v: want ErrTooManyChanges, and one read said", over)
	}
}

// asInput finds an *InputError of kind with name.
func asInput(kind error, name string) func(error) bool {
	return func(err error) bool {
		var e *cqlgen.InputError
		return errors.As(err, &e) && e.Err == kind && e.Name == name
	}
}
