package cqldriver

import "testing"

func TestPreparedCQL(t *testing.T) {
	txn := "BEGIN TRANSACTION\n  INSERT INTO a (k) VALUES (?);\nCOMMIT TRANSACTION"
	for _, c := range []struct{ in, want string }{
		{txn, txn + PrepareHint},
		{txn + ";\n", txn + ";\n" + PrepareHint},
		{"  begin transaction select v from a where k = ?; commit transaction", "  begin transaction select v from a where k = ?; commit transaction" + PrepareHint},
		// What the drivers prepare already stays as it is.
		{"BEGIN BATCH INSERT INTO a (k) VALUES (?); APPLY BATCH", "BEGIN BATCH INSERT INTO a (k) VALUES (?); APPLY BATCH"},
		{"begin unlogged batch insert into a (k) values (?) apply batch;", "begin unlogged batch insert into a (k) values (?) apply batch;"},
		{"SELECT v FROM a WHERE k = ?", "SELECT v FROM a WHERE k = ?"},
		{"INSERT INTO a (k) VALUES (?)", "INSERT INTO a (k) VALUES (?)"},
		{"", ""},
		{"BEGIN", "BEGIN"},
	} {
		if got := PreparedCQL(c.in); got != c.want {
			t.Errorf("PreparedCQL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
