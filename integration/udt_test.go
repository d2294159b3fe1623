package integration

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/typemodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// customer is a Customer with a value in every user-defined type
// position, as Cassandra gives it back (a time in UTC at millisecond
// precision).
func customer(country string) typemodel.Customer {
	id, _ := gocql.RandomUUID()
	zip := "75001"
	return typemodel.Customer{
		CustomerID: id,
		Region:     typemodel.Region{Country: country, Area: "north"},
		Billing: typemodel.Address{Street: "1 rue de Rivoli", City: "Paris", Zip: &zip, Lines: []string{"bât. B", "3e"},
			Location: &typemodel.Geo{Lat: 48.86, Lon: 2.35}, Tags: map[string]string{"door": "blue"}},
		Shipping: &typemodel.Address{Street: "2 quai", City: "Lyon"},
		Others:   []typemodel.Address{{Street: "a", City: "b"}, {Street: "c", City: "d", Lines: []string{"x"}}},
		ByLabel: map[string]typemodel.Contact{
			"work": {Name: "Ann", Home: typemodel.Address{Street: "5 av", City: "Nice"}, Wait: 90 * time.Second},
		},
		Seen:  map[typemodel.Geo]struct{}{{Lat: 1, Lon: 2}: {}, {Lat: -1, Lon: 0}: {}},
		Audit: typemodel.Audit{CreatedAt: time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC), CreatedBy: "agent-7"},
	}
}

func sameCustomer(t *testing.T, what string, got *typemodel.Customer, want typemodel.Customer) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no customer", what)
	}
	g, w := *got, want
	if !g.CreatedAt.Equal(w.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v", what, g.CreatedAt, w.CreatedAt)
	}
	g.CreatedAt, w.CreatedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// Nested structs go in as user-defined types and come back whole through
// every read of the repository; Update moves a row keyed by one; Verify
// finds the two tables in step.
func TestUDTRoundTrips(t *testing.T) { onBoth(t, typemodel.Schema, testUDTRoundTrips) }

func testUDTRoundTrips(t *testing.T, raw *gocql.Session, s cqlgen.Session) {
	ctx := context.Background()
	repo := typemodel.NewCustomerRepo(s)
	c := customer("fr")
	must(t, repo.Insert(ctx, &c))
	got, err := repo.Get(ctx, c.CustomerID)
	must(t, err)
	sameCustomer(t, "Get", got, c)
	page, err := repo.CustomersByRegion(ctx, c.Region, nil)
	must(t, err)
	if len(page.Rows) != 1 {
		t.Fatalf("CustomersByRegion: %d rows", len(page.Rows))
	}
	sameCustomer(t, "CustomersByRegion", &page.Rows[0], c)

	// A nil pointer reads back nil, and a new region moves the row.
	old := c.Region
	c.Shipping, c.Region = nil, typemodel.Region{Country: "fr", Area: "south"}
	must(t, repo.Update(ctx, &c))
	got, err = repo.Get(ctx, c.CustomerID)
	must(t, err)
	sameCustomer(t, "Get after Update", got, c)
	if page, err := repo.CustomersByRegion(ctx, old, nil); err != nil || len(page.Rows) != 0 {
		t.Errorf("the row under the old region stays: %+v, %v", page, err)
	}
	page, err = repo.CustomersByRegion(ctx, c.Region, nil)
	must(t, err)
	if len(page.Rows) != 1 {
		t.Fatalf("CustomersByRegion after Update: %d rows", len(page.Rows))
	}
	sameCustomer(t, "CustomersByRegion after Update", &page.Rows[0], c)
	rep, err := repo.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}

	if raw == nil {
		return
	}
	// The stored shape, read with plain gocql and no generated code: the
	// node holds user-defined types with the fields the db tags name.
	var region, billing map[string]any
	var createdBy string
	if err := raw.Query(`SELECT region, billing, created_by FROM customers WHERE customer_id = ?`, c.CustomerID).
		Scan(&region, &billing, &createdBy); err != nil {
		t.Fatal(err)
	}
	if region["country"] != "fr" || region["area"] != "south" {
		t.Errorf("region as stored: %v", region)
	}
	if billing["street"] != "1 rue de Rivoli" || billing["city"] != "Paris" || billing["zip"] != "75001" ||
		!slices.Equal(billing["lines"].([]string), []string{"bât. B", "3e"}) {
		t.Errorf("billing as stored: %v", billing)
	}
	if loc, ok := billing["location"].(map[string]any); !ok || loc["lat"] != 48.86 || loc["lon"] != 2.35 {
		t.Errorf("billing.location as stored: %#v", billing["location"])
	}
	if createdBy != "agent-7" {
		t.Errorf("created_by, a column of the embedded Audit, as stored: %q", createdBy)
	}
	// The node says the column is its user-defined type, with the fields
	// in the order of the struct's.
	it := raw.Query(`SELECT billing FROM customers LIMIT 1`).Iter()
	cols := it.Columns()
	it.Close()
	u, ok := cols[0].TypeInfo.(gocql.UDTTypeInfo)
	if !ok || u.Name != "address" {
		t.Fatalf("billing is a %v, want the user-defined type address", cols[0].TypeInfo)
	}
	var names []string
	for _, e := range u.Elements {
		names = append(names, e.Name)
	}
	if want := []string{"street", "city", "zip", "lines", "location", "tags"}; !slices.Equal(names, want) {
		t.Errorf("address has fields %v, want %v", names, want)
	}
}

// A value written by plain gocql with fields the struct leaves at zero
// (a null inside the type) reads back as zero values.
func TestUDTNullFieldsReadAsZero(t *testing.T) {
	raw, s := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	id, _ := gocql.RandomUUID()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := raw.Query(`INSERT INTO customers (customer_id, region, billing, created_at, cqlgen_version, cqlgen_deleted) VALUES (?, {country: 'de'}, {street: 'Weg'}, ?, 1, false)`, id, at).Exec(); err != nil {
		t.Fatal(err)
	}
	got, err := typemodel.NewCustomerRepo(s).Get(ctx, id)
	must(t, err)
	want := typemodel.Customer{CustomerID: id, Region: typemodel.Region{Country: "de"}, Billing: typemodel.Address{Street: "Weg"}, Audit: typemodel.Audit{CreatedAt: at}}
	sameCustomer(t, "Get", got, want)
}

// A type can gain a field in the schema before the code does: the
// generated methods write it as null and skip it when read.
func TestUDTFieldAddedToSchemaFirst(t *testing.T) {
	raw, s := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	must(t, raw.Query(`ALTER TYPE address ADD floor int`).Exec())
	repo := typemodel.NewCustomerRepo(s)
	c := customer("it")
	must(t, repo.Insert(ctx, &c))
	got, err := repo.Get(ctx, c.CustomerID)
	must(t, err)
	sameCustomer(t, "Get", got, c)
	var billing map[string]any
	must(t, raw.Query(`SELECT billing FROM customers WHERE customer_id = ?`, c.CustomerID).Scan(&billing))
	if billing["floor"] != 0 || billing["city"] != "Paris" {
		t.Errorf("billing as stored: %v; want the new field null (0) and the others written", billing)
	}
	must(t, raw.Query(`UPDATE customers SET billing = {street: 's', city: 'c', floor: 3} WHERE customer_id = ?`, c.CustomerID).Exec())
	got, err = repo.Get(ctx, c.CustomerID)
	must(t, err)
	if got.Billing.Street != "s" || got.Billing.City != "c" || got.Billing.Zip != nil {
		t.Errorf("Get of a value with a field the struct lacks: %+v", got.Billing)
	}
}

// Rows clustered by a user-defined type come back in Cassandra's order,
// field by field, and pages continue after the last row's value.
func TestUDTClusteringOrderAndPaging(t *testing.T) {
	onBoth(t, typemodel.Schema, testUDTClusteringOrderAndPaging)
}

func testUDTClusteringOrderAndPaging(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
	ctx := context.Background()
	repo := typemodel.NewVisitRepo(s)
	id, _ := gocql.RandomUUID()
	spots := []typemodel.Geo{{Lat: 2, Lon: -1}, {Lat: -3, Lon: 5}, {Lat: 2, Lon: -7}, {Lat: 0, Lon: 0}, {Lat: -3, Lon: 4}}
	for _, g := range spots {
		must(t, repo.Insert(ctx, &typemodel.Visit{CustomerID: id, Spot: g, Note: "n"}))
	}
	want := slices.Clone(spots)
	slices.SortFunc(want, func(a, b typemodel.Geo) int {
		if a.Lat != b.Lat {
			return cmpFloat(a.Lat, b.Lat)
		}
		return cmpFloat(a.Lon, b.Lon)
	})
	var got []typemodel.Geo
	cursor := ""
	for range 10 {
		page, err := repo.Visits(ctx, id, &typemodel.VisitsOptions{Limit: 2, Cursor: cursor})
		must(t, err)
		for _, r := range page.Rows {
			got = append(got, r.Spot)
		}
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("visits in pages of 2: %v, want %v", got, want)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
