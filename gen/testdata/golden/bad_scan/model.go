// Package badscan declares scans the rules refuse.
package badscan

//cqlgen:tenant tenant_id

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Invoice is a tenant's; a scan would read every tenant's.
type Invoice struct {
	_ cqlgen.Pattern `table:"invoices,canonical,scan" pk:"tenant_id, invoice_id" size:"rows=1"`
	_ cqlgen.Pattern `table:"invoices_by_number,unique,scan" pk:"tenant_id, number" name:"InvoiceByNumber"`

	TenantID  string `db:"tenant_id"`
	InvoiceID string `db:"invoice_id"`
	Number    string `db:"number"`
}

// Country is data every tenant shares: a scan crosses no tenant.
type Country struct {
	_ cqlgen.Pattern `table:"countries,scan" pk:"code" size:"rows=1" ignore:"tenant-key: the same list for every tenant"`

	Code string `db:"code"`
	Name string `db:"name"`
}

// Tag gives scan twice.
type Tag struct {
	_ cqlgen.Pattern `table:"tags,scan,scan" pk:"tenant_id, tag" size:"rows=1"`

	TenantID string `db:"tenant_id"`
	Tag      string `db:"tag"`
}
