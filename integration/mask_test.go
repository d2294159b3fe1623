package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// maskClause is a column's MASKED WITH clause in schema.cql.
var maskClause = regexp.MustCompile(` MASKED WITH mask_\w+\([^)]*\)`)

// TestMasks applies the masked columns of the vectors golden case to the
// real node. Where the node has dynamic data masking enabled
// (dynamic_data_masking_enabled in cassandra.yaml), the tables are
// created as generated and system_schema.column_masks must hold each
// mask the model declares, function and arguments. Where it is disabled,
// as Cassandra ships, the node must refuse the DDL for that reason alone
// (not for its syntax), and each masking function, with the generated
// arguments, is run on a row of the column's table, to check that it
// applies to the column's type and masks the value.
func TestMasks(t *testing.T) {
	pkgs, _, err := pipeline.Models(pipeline.Options{Dir: "..", Patterns: []string{"./gen/testdata/golden/vectors"}})
	if err != nil || len(pkgs) != 1 {
		t.Fatalf("models: %v", err)
	}
	p := pkgs[0]
	session, ks := cassandratest.Keyspace(t)
	ddl := filepath.Join(p.Dir, gen.SchemaFile)
	var enabled string
	must(t, session.Query(`SELECT value FROM system_views.settings WHERE name = 'dynamic_data_masking_enabled'`).Scan(&enabled))
	t.Logf("dynamic_data_masking_enabled: %s", enabled)

	type masked struct{ table, column, fn string }
	var masks []masked
	for _, table := range p.Tables() {
		for _, c := range table.Columns {
			if c.Field != nil && c.Field.Mask != "" {
				masks = append(masks, masked{table.Name, c.Name, c.Field.Mask})
			}
		}
	}
	if len(masks) < 6 {
		t.Fatalf("%d masked columns in the golden case, want 6 or more", len(masks))
	}

	if enabled == "true" {
		cassandratest.MustApplyCQLFile(t, session, ddl)
		for _, m := range masks {
			var fn string
			var args []string
			must(t, session.Query(`SELECT function_name, function_argument_values FROM system_schema.column_masks WHERE keyspace_name = ? AND table_name = ? AND column_name = ?`, ks, m.table, m.column).Scan(&fn, &args))
			fn = strings.TrimPrefix(fn, "system.")
			// The node keeps the arguments' values, a string's without
			// its quotes.
			if got := fmt.Sprintf("%s(%s)", fn, strings.Join(args, ", ")); got != strings.ReplaceAll(m.fn, "'", "") {
				t.Errorf("%s.%s: the node holds the mask %s, the model says %s", m.table, m.column, got, m.fn)
			}
		}
		return
	}

	err = cassandratest.ApplyCQLFile(session, ddl)
	if err == nil || !strings.Contains(err.Error(), "dynamic data masking is not enabled") {
		t.Fatalf("the masked DDL on a node without masking: %v; want it refused because masking is disabled", err)
	}
	raw, err := os.ReadFile(ddl)
	must(t, err)
	plain := maskClause.ReplaceAllString(string(raw), "")
	if strings.Contains(plain, "MASKED") {
		t.Fatal("a mask the test could not take out of the DDL")
	}
	cassandratest.MustApplyCQL(t, session, plain)
	must(t, session.Query(`INSERT INTO accounts (account_id, email, phone, balance, notes, born, card) VALUES ('a1', 'ada@example.com', '+44 20 7946 0000', 1200, 'vip', '1815-12-10', '4111111111111111')`).Exec())
	must(t, session.Query(`INSERT INTO videos (channel_id, video_id, user_id, title, signature) VALUES ('c1', now(), 'ada', 't', 0xcafe)`).Exec())
	must(t, session.Query(`INSERT INTO videos_by_user (user_id, added_at, channel_id, video_id, title) VALUES ('ada', toTimestamp(now()), 'c1', now(), 't')`).Exec())
	want := map[string]string{
		"email":   "a***********com",
		"phone":   "***",
		"balance": "0",
		"notes":   "",
		"born":    "1970-01-01",
		"card":    "411111111111****",
	}
	for _, m := range masks {
		call := strings.Replace(m.fn, "(", "("+m.column+", ", 1)
		call = strings.Replace(call, ", )", ")", 1)
		row := map[string]any{}
		if err := session.Query(fmt.Sprintf("SELECT %s AS masked FROM %s LIMIT 1", call, m.table)).MapScan(row); err != nil {
			t.Errorf("%s.%s: %s: %v", m.table, m.column, call, err)
			continue
		}
		got := row["masked"]
		s := fmt.Sprint(got)
		if b, ok := got.([]byte); ok {
			s = fmt.Sprintf("%x", b)
		}
		if w, ok := want[m.column]; ok && !strings.HasPrefix(s, w) || (ok && w == "" && s != "") {
			t.Errorf("%s.%s: %s = %q, want %q", m.table, m.column, call, s, w)
		}
		if m.column == "signature" && (len(s) < 32 || s == "cafe") {
			t.Errorf("videos.signature: %s = %q, want a hash", call, s)
		}
		t.Logf("%s = %s", call, s)
	}
}
