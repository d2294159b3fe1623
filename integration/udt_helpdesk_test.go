package integration

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// The helpdesk's customers keep their addresses and phones as
// user-defined types and their audit columns from an embedded struct:
// written through the repository, read back through it whole, listed
// newest first by the embedded created_at, and stored as the schema says.
func TestHelpdeskCustomers(t *testing.T) { onBoth(t, helpdesk.Schema, testHelpdeskCustomers) }

func testHelpdeskCustomers(t *testing.T, raw *gocql.Session, s cqlgen.Session) {
	ctx := context.Background()
	repo := helpdesk.NewCustomerRepo(s)
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	ann := helpdesk.Customer{
		OrgID: "acme", Email: "ann@example.com", Name: "Ann", Company: "Initech",
		Postal: helpdesk.Address{Lines: []string{"1 Main St", "Suite 2"}, City: "Springfield", Postcode: "12345", Country: "US"},
		Phones: []helpdesk.Phone{{Label: "work", Number: "+1 555 0100"}, {Label: "mobile", Number: "+1 555 0101"}},
		Audit:  helpdesk.Audit{CreatedAt: at, CreatedBy: "self"},
	}
	bob := helpdesk.Customer{
		OrgID: "acme", Email: "bob@example.com", Name: "Bob",
		Postal:  helpdesk.Address{City: "Shelbyville", Country: "US"},
		Billing: &helpdesk.Address{Lines: []string{"PO Box 9"}, City: "Capital City", Country: "US"},
		Audit:   helpdesk.Audit{CreatedAt: at.Add(time.Hour), CreatedBy: "agent-1"},
	}
	must(t, repo.Insert(ctx, &ann))
	must(t, repo.Insert(ctx, &bob))
	for _, want := range []helpdesk.Customer{ann, bob} {
		got, err := repo.Get(ctx, want.OrgID, want.Email)
		must(t, err)
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("Get(%s):\n got %+v\nwant %+v", want.Email, *got, want)
		}
	}
	page, err := repo.CustomersNewestFirst(ctx, "acme", nil)
	must(t, err)
	if len(page.Rows) != 2 || page.Rows[0].Email != bob.Email || !page.Rows[0].CreatedAt.Equal(bob.CreatedAt) || page.Rows[1].Email != ann.Email {
		t.Errorf("CustomersNewestFirst: %+v", page.Rows)
	}

	if raw == nil {
		return
	}
	var postal, billing map[string]any
	var phones []map[string]any
	if err := raw.Query(`SELECT postal, billing, phones FROM customers WHERE org_id = ? AND email = ?`, "acme", ann.Email).
		Scan(&postal, &billing, &phones); err != nil {
		t.Fatal(err)
	}
	if postal["city"] != "Springfield" || postal["postcode"] != "12345" || !reflect.DeepEqual(postal["lines"], []string{"1 Main St", "Suite 2"}) {
		t.Errorf("postal as stored: %v", postal)
	}
	if billing != nil {
		t.Errorf("billing of a nil *Address as stored: %v, want null", billing)
	}
	if len(phones) != 2 || phones[1]["label"] != "mobile" || phones[1]["number"] != "+1 555 0101" {
		t.Errorf("phones as stored: %v", phones)
	}
}
