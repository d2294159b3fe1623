package cqlgen

import (
	"errors"
	"strings"
	"testing"
)

// A lost reply the record could not settle is told in the words of what
// lost it: the write protocol's conditional write, or the transactional
// mode's transaction (Cassandra 6).
func TestWriteUnknownErrorNamesWhatLostItsReply(t *testing.T) {
	cause := errors.New("timeout")
	for _, c := range []struct {
		transaction bool
		want, not   string
	}{
		{false, "the conditional write's reply was lost", "transaction"},
		{true, "the transaction's reply was lost", "conditional write"},
	} {
		err := &WriteUnknownError{Table: "members", Err: cause, Reads: 2, Transaction: c.transaction}
		msg := err.Error()
		if !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) || !errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("Transaction=%v: %q", c.transaction, msg)
		}
	}
}
