package integration

import (
	"fmt"
	"math/big"
	"net"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestSchemas applies the committed schema.cql of each example, and of the
// golden cases that generate one (every type, every bucket, every grammar
// feature, user-defined types), to a fresh keyspace and checks, table by table, that what Cassandra holds is
// what the model declares: the partition key in order, the clustering
// columns in order and direction, the TTL, and every column's type. The
// model comes from the Go source, the DDL from the committed file, so a
// hand edit of schema.cql (or a generator that writes DDL Cassandra reads
// differently) fails here. Then it writes and reads one row per table with
// plain gocql, to prove each table is usable.
func TestSchemas(t *testing.T) {
	patterns := []string{"./example/...", "./gen/testdata/golden/types", "./gen/testdata/golden/buckets", "./gen/testdata/golden/features",
		"./gen/testdata/golden/udt", "./gen/testdata/golden/counters", "./gen/testdata/golden/bucket_only", "./gen/testdata/golden/unique_id",
		"./gen/testdata/golden/where", "./gen/testdata/golden/unique_table", "./gen/testdata/golden/quoted"}
	pkgs, _, err := pipeline.Models(pipeline.Options{Dir: "..", Patterns: patterns})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pkgs {
		if len(p.Entities) == 0 {
			continue
		}
		n++
		t.Run(filepath.Base(p.Dir), func(t *testing.T) {
			t.Parallel()
			session, ks := cassandratest.Keyspace(t)
			cassandratest.MustApplyCQLFile(t, session, filepath.Join(p.Dir, gen.SchemaFile))
			for _, table := range p.Tables() {
				t.Run(table.Name, func(t *testing.T) {
					checkTable(t, session, ks, table)
					roundTrip(t, session, table)
				})
			}
		})
	}
	if n < 5 {
		t.Fatalf("found %d packages with entities, want 5", n)
	}
}

type column struct {
	kind, order, typ string
	position         int
}

func checkTable(t *testing.T, session *gocql.Session, ks string, table *model.Table) {
	t.Helper()
	var ttl int
	if err := session.Query(`SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, table.Name).Scan(&ttl); err != nil {
		t.Fatalf("reading system_schema.tables: %v", err)
	}
	if int64(ttl) != table.TTL {
		t.Errorf("default_time_to_live = %d, the model says %d", ttl, table.TTL)
	}

	got := map[string]column{}
	iter := session.Query(`SELECT column_name, kind, clustering_order, type, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`, ks, table.Name).Iter()
	var name string
	var c column
	for iter.Scan(&name, &c.kind, &c.order, &c.typ, &c.position) {
		got[name] = c
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("reading system_schema.columns: %v", err)
	}

	want := map[string]column{}
	pk, ck := 0, 0
	for _, col := range table.Columns {
		c := column{typ: col.Type.String(), order: "none", position: -1}
		switch col.Kind {
		case model.PartitionKey:
			c.kind, c.position = "partition_key", pk
			pk++
		case model.Clustering:
			c.kind, c.position, c.order = "clustering", ck, "asc"
			if col.Desc {
				c.order = "desc"
			}
			ck++
		case model.Static:
			c.kind = "static"
		default:
			c.kind = "regular"
		}
		want[col.Name] = c
	}
	if !reflect.DeepEqual(got, want) {
		for name, w := range want {
			if g, ok := got[name]; !ok {
				t.Errorf("column %s: missing in Cassandra; the model has %+v", name, w)
			} else if g != w {
				t.Errorf("column %s: Cassandra has %+v, the model says %+v", name, g, w)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("column %s: in Cassandra, not in the model", name)
			}
		}
	}
}

// roundTrip inserts one row with a value of the right type in every column
// and reads it back by its full primary key.
func roundTrip(t *testing.T, session *gocql.Session, table *model.Table) {
	t.Helper()
	var names, quoted, marks, where []string
	var values, keyValues []any
	// Every name written quoted, as any name may be: those of a table
	// with db:"name,quoted" columns (from, createdAt) need it.
	q := func(name string) string { return `"` + name + `"` }
	for _, col := range table.Columns {
		v := sample(t, col.Type)
		names, quoted = append(names, col.Name), append(quoted, q(col.Name))
		marks = append(marks, "?")
		values = append(values, v)
		if col.Kind == model.PartitionKey || col.Kind == model.Clustering {
			where = append(where, q(col.Name)+" = ?")
			keyValues = append(keyValues, v)
		}
	}
	insert := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table.Name, strings.Join(quoted, ", "), strings.Join(marks, ", "))
	written := values
	if table.HasCounters() {
		// Cassandra refuses an INSERT on a counter table: add to each
		// counter from zero, which reads back as the amount added.
		var set []string
		var binds []any
		for i, col := range table.Columns {
			if col.Kind != model.PartitionKey && col.Kind != model.Clustering {
				set = append(set, q(col.Name)+" = "+q(col.Name)+" + ?")
				binds = append(binds, values[i])
			}
		}
		insert = fmt.Sprintf("UPDATE %s SET %s WHERE %s", table.Name, strings.Join(set, ", "), strings.Join(where, " AND "))
		values = append(binds, keyValues...)
	}
	bind := make([]any, len(values))
	for i, v := range values {
		bind[i] = gocqlv1.Value(v) // the runtime's own values (a Vector) as gocql binds them
	}
	if err := session.Query(insert, bind...).Exec(); err != nil {
		t.Fatalf("%s: %v", insert, err)
	}
	// gocql cannot choose a Go type for a vector, which it knows only as
	// a custom type: read vectors apart, each into the runtime's Vector.
	var plain []string
	row := map[string]any{}
	for i, name := range names {
		if table.Columns[i].Type.IsVector() {
			var v cqlgenimpl.Vector
			sel := fmt.Sprintf("SELECT %s FROM %s WHERE %s", q(name), table.Name, strings.Join(where, " AND "))
			if err := session.Query(sel, keyValues...).Scan(gocqlv1.Dest(&v)); err != nil {
				t.Fatalf("%s: %v", sel, err)
			}
			row[name] = v
			continue
		}
		plain = append(plain, q(name))
	}
	sel := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(plain, ", "), table.Name, strings.Join(where, " AND "))
	if err := session.Query(sel, keyValues...).MapScan(row); err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	for i, name := range names {
		if got, want := fmt.Sprint(row[name]), fmt.Sprint(written[i]); got != want {
			t.Errorf("column %s: wrote %s, read %s", name, want, got)
		}
	}
}

// sample returns a value of CQL type typ that reads back as it was written.
func sample(t *testing.T, typ *model.Type) any {
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	if u := typ.UDT; u != nil {
		v := map[string]any{}
		for _, f := range u.Fields {
			v[f.Column] = sample(t, f.Type)
		}
		return v
	}
	switch typ.Name {
	case "text", "varchar", "ascii":
		return "x-" + typ.Name
	case "tinyint":
		return int8(7)
	case "smallint":
		return int16(7)
	case "int":
		return int32(7)
	case "bigint", "counter":
		return int64(7)
	case "varint":
		return big.NewInt(7)
	case "decimal":
		return inf.NewDec(7, 1)
	case "float":
		return float32(1.5)
	case "double":
		return 1.5
	case "boolean":
		return true
	case "blob":
		return []byte{1, 2, 3}
	case "timestamp":
		return day.Add(90 * time.Minute)
	case "date":
		return day
	case "uuid", "timeuuid":
		return gocql.UUIDFromTime(day)
	case "inet":
		return net.IPv4(127, 0, 0, 1)
	case "duration":
		return gocql.Duration{Days: 1}
	case "time":
		return 90 * time.Minute
	case "vector":
		v := make(cqlgenimpl.Vector, typ.Dim)
		for i := range v {
			v[i] = float32(i) / 4
		}
		return v
	case "list", "set":
		return reflect.Append(reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(sample(t, typ.Params[0]))), 0, 1), reflect.ValueOf(sample(t, typ.Params[0]))).Interface()
	case "map":
		k, v := sample(t, typ.Params[0]), sample(t, typ.Params[1])
		m := reflect.MakeMap(reflect.MapOf(reflect.TypeOf(k), reflect.TypeOf(v)))
		m.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(v))
		return m.Interface()
	}
	t.Fatalf("no sample value for CQL type %s", typ)
	return nil
}
