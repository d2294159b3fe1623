package cqlschema

import (
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
)

func typ(name string, params ...*model.Type) *model.Type {
	return &model.Type{Name: name, Params: params}
}

// shop is a small model built by hand: an order stored in two tables (a
// source of truth with statics, a TTL, a mask, options and an index, and a
// sparse, bucketed, deprecated table), a counter entity, a unique table
// and a user-defined type.
func shop() *model.Package {
	p := &model.Package{Path: "example.com/shop", Keyspace: &model.Keyspace{Name: "shop", Replication: "{'class': 'SimpleStrategy', 'replication_factor': 1}"}}

	street := &model.Field{GoName: "Street", Column: "street", Type: typ("text")}
	zip := &model.Field{GoName: "ZipCode", Column: "zip_code", Type: typ("int")}
	addr := &model.UDT{Name: "address", GoName: "Address", Fields: []*model.Field{street, zip}}
	p.UDTs = []*model.UDT{addr}

	customer := &model.Field{GoName: "CustomerID", Column: "customer_id", Type: typ("text")}
	placed := &model.Field{GoName: "PlacedAt", Column: "placed_at", Type: typ("timestamp")}
	id := &model.Field{GoName: "OrderID", Column: "order_id", Type: typ("uuid")}
	name := &model.Field{GoName: "CustomerName", Column: "customer_name", Type: typ("text")}
	status := &model.Field{GoName: "Status", Column: "status", Type: typ("text")}
	card := &model.Field{GoName: "Card", Column: "card", Type: typ("text"), Mask: "mask_inner(1, 1)"}
	tags := &model.Field{GoName: "Tags", Column: "tags", Type: typ("set", typ("text"))}
	ship := &model.Field{GoName: "ShipTo", Column: "ship_to", Type: &model.Type{Name: "address", UDT: addr, Frozen: true}}
	order := &model.Entity{GoName: "Order", Fields: []*model.Field{customer, placed, id, name, status, card, tags, ship}}

	col := func(f *model.Field, k model.ColumnKind) *model.Column {
		return &model.Column{Name: f.Column, Type: f.Type, Kind: k, Field: f}
	}
	placedCol := col(placed, model.Clustering)
	placedCol.Desc = true
	orders := &model.Table{
		Entity: order, Name: "orders", Method: "Orders", Doc: "a customer's orders, newest first.", Canonical: true,
		TTL: 90 * 86400,
		Columns: []*model.Column{
			col(customer, model.PartitionKey), placedCol, col(id, model.Clustering),
			col(name, model.Static), col(status, model.Regular), col(card, model.Regular), col(tags, model.Regular), col(ship, model.Regular),
			{Name: cqlspec.VersionColumn, Type: typ("bigint"), Kind: model.Version},
			{Name: cqlspec.StaticVersionColumn, Type: typ("bigint"), Kind: model.StaticVersion},
		},
		Options: model.TableOptions{Compaction: &model.Compaction{Strategy: "twcs", WindowN: 3, WindowUnit: "d"}, GCGrace: 3600, HasGCGrace: true},
	}
	bucket := &model.Bucket{Kind: model.HashBucket, Source: model.Ref{Name: "order_id", Field: id}, N: 16, Column: "shard"}
	open := &model.Table{
		Entity: order, Name: "open_orders", Method: "OpenOrders", Doc: "the open orders; any of them.",
		Where:      []model.Cond{{Ref: model.Ref{Name: "status", Field: status}, Op: model.CondEq, Values: []model.CondValue{{Text: "OPEN", Quoted: true}}}},
		Bucket:     bucket,
		Deprecated: true, ReplacedByName: "orders",
		Columns: []*model.Column{
			col(status, model.PartitionKey), {Name: "shard", Type: bucket.Type(), Kind: model.PartitionKey, Bucket: bucket},
			col(id, model.Clustering), col(customer, model.Regular),
		},
		Options: model.TableOptions{Comment: "it's open", HasComment: true},
	}
	cards := &model.Table{
		Entity: order, Name: "orders_by_card", Method: "OrderByCard", Doc: "the order holding a card.", Unique: true,
		Columns: []*model.Column{col(card, model.PartitionKey), col(id, model.Regular), {Name: cqlspec.ClaimColumn, Type: typ("bigint"), Kind: model.Claim}},
	}
	order.Tables = []*model.Table{orders, open, cards}
	order.Canonical = orders
	order.Indexes = []*model.Index{
		{Entity: order, Name: "orders_by_tag", On: orders, Column: model.Ref{Name: "tags", Field: tags}, IndexedRead: model.IndexedRead{PK: []model.Ref{{Name: "customer_id", Field: customer}}, Method: "OrdersByTag", Doc: "a customer's orders with a tag."}},
		{Entity: order, Name: "orders_by_status", On: orders, Column: model.Ref{Name: "status", Field: status}, IndexedRead: model.IndexedRead{Method: "OrdersByStatus", Doc: "orders in a status."}},
		{Entity: order, Name: "nowhere", OnName: "missing", Column: model.Ref{Name: "status", Field: status}, IndexedRead: model.IndexedRead{Method: "Nowhere", Doc: "not generated."}},
	}

	page := &model.Field{GoName: "Page", Column: "page", Type: typ("text")}
	views := &model.Field{GoName: "Views", Column: "views", Type: typ("counter")}
	hits := &model.Entity{GoName: "Hits", Fields: []*model.Field{page, views}}
	hitsT := &model.Table{Entity: hits, Name: "hits", Method: "Hits", Doc: "views of a page", Columns: []*model.Column{col(page, model.PartitionKey), col(views, model.Regular)}}
	hits.Tables, hits.Canonical = []*model.Table{hitsT}, hitsT

	p.Entities = []*model.Entity{order, hits}
	return p
}

func render(t *testing.T, p *model.Package) string {
	t.Helper()
	out, err := Schema(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// block is the part of out from the line starting with start to the next
// blank line.
func block(t *testing.T, out, start string) string {
	t.Helper()
	i := strings.Index(out, "\n"+start)
	if i < 0 {
		t.Fatalf("no block starting %q in:\n%s", start, out)
	}
	b := out[i+1:]
	if j := strings.Index(b, "\n\n"); j >= 0 {
		b = b[:j]
	}
	return b
}

func check(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestHeaderKeyspaceAndTypes(t *testing.T) {
	out := render(t, shop())
	check(t, strings.SplitN(out, "\n\n-- Order.", 2)[0], `-- Code generated by cqlgen. DO NOT EDIT.
-- Source: package example.com/shop. One table per access pattern.

CREATE KEYSPACE IF NOT EXISTS shop
    WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};

USE shop;

-- User-defined type of Address, frozen wherever it is stored.
CREATE TYPE IF NOT EXISTS address (
    street   text,
    zip_code int
);`)
}

func TestNoKeyspace(t *testing.T) {
	p := shop()
	p.Keyspace = nil
	if out := render(t, p); strings.Contains(out, "KEYSPACE") || strings.Contains(out, "USE ") {
		t.Errorf("a package without //cqlgen:keyspace got a keyspace:\n%s", out)
	}
}

// The source of truth: its comment names it, statics, a mask, clustering
// order, TTL, compaction, gc_grace, the comment, a frozen UDT column, the
// protocol's columns, and its indexes (one in a partition, one scatter;
// the one on no table is left out).
func TestSourceOfTruth(t *testing.T) {
	out := render(t, shop())
	check(t, block(t, out, "-- Order.Orders:"), `-- Order.Orders: a customer's orders, newest first.
-- Source of truth for Order.
-- Rows expire after 90 days.
CREATE TABLE IF NOT EXISTS orders (
    customer_id           text,
    placed_at             timestamp,
    order_id              uuid,
    customer_name         text STATIC,
    status                text,
    card                  text MASKED WITH mask_inner(1, 1),
    tags                  set<text>,
    ship_to               frozen<address>,
    cqlgen_version        bigint,
    cqlgen_static_version bigint STATIC,
    PRIMARY KEY (customer_id, placed_at, order_id)
) WITH CLUSTERING ORDER BY (placed_at DESC, order_id ASC)
    AND default_time_to_live = 7776000
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 3}
    AND gc_grace_seconds = 3600
    AND comment = 'a customer''s orders, newest first';`)
	check(t, block(t, out, "-- Order.OrdersByTag:"), `-- Order.OrdersByTag: a customer's orders with a tag.
-- Reads by tags CONTAINS within one partition (customer_id).
CREATE CUSTOM INDEX IF NOT EXISTS orders_by_tag ON orders (tags)
    USING 'StorageAttachedIndex';`)
	check(t, block(t, out, "-- Order.OrdersByStatus:"), `-- Order.OrdersByStatus: orders in a status.
-- Reads by status = scatter over every token range of the cluster.
CREATE CUSTOM INDEX IF NOT EXISTS orders_by_status ON orders (status)
    USING 'StorageAttachedIndex';`)
	if strings.Contains(out, "nowhere") {
		t.Error("an index on no table is in the DDL")
	}
}

// A sparse, bucketed, deprecated table: its predicate, deprecation and
// bucket in the header, a composite partition key, and the explicit
// comment with DEPRECATED before it.
func TestSparseBucketedDeprecated(t *testing.T) {
	out := render(t, shop())
	check(t, block(t, out, "-- Order.OpenOrders:"), `-- Order.OpenOrders: the open orders; any of them.
-- Holds only the rows where status = 'OPEN'.
-- Deprecated: replaced by orders; still written, dropped by hand after its backfill and the switch of reads (cqlgen diff says when).
-- Bucket: shard = hash(order_id) % 16; reads query all 16 buckets and merge them.
CREATE TABLE IF NOT EXISTS open_orders (
    status      text,
    shard       int,
    order_id    uuid,
    customer_id text,
    PRIMARY KEY ((status, shard), order_id)
) WITH CLUSTERING ORDER BY (order_id ASC)
    AND comment = 'DEPRECATED, replaced by orders: it''s open';`)
}

// A unique table says what its rows are, and has no clustering order; a
// field's mask goes with it to every table that stores it. A counter
// table alone is its entity's source of truth.
func TestUniqueAndCounters(t *testing.T) {
	out := render(t, shop())
	check(t, block(t, out, "-- Order.OrderByCard:"), `-- Order.OrderByCard: the order holding a card.
-- Unique: each row is a claim of its key by one Order, written only by conditional writes.
CREATE TABLE IF NOT EXISTS orders_by_card (
    card         text MASKED WITH mask_inner(1, 1),
    order_id     uuid,
    cqlgen_claim bigint,
    PRIMARY KEY (card)
) WITH comment = 'the order holding a card';`)
	check(t, block(t, out, "-- Hits.Hits:"), `-- Hits.Hits: views of a page.
-- Source of truth for Hits.
CREATE TABLE IF NOT EXISTS hits (
    page  text,
    views counter,
    PRIMARY KEY (page)
) WITH comment = 'views of a page';`)
}

// The runtime's own tables close every schema.
func TestRuntimeTables(t *testing.T) {
	out := render(t, shop())
	for _, want := range []string{"CREATE TABLE IF NOT EXISTS cqlgen_idempotency (", "CREATE TABLE IF NOT EXISTS cqlgen_progress ("} {
		if !strings.Contains(out, want) {
			t.Errorf("schema lacks %q", want)
		}
	}
}

func TestBucketWords(t *testing.T) {
	src := model.Ref{Name: "at"}
	for _, c := range []struct {
		b    model.Bucket
		want string
	}{
		{model.Bucket{Kind: model.HourBucket, Source: src}, "the UTC hour of at; reads walk back hour by hour"},
		{model.Bucket{Kind: model.DayBucket, Source: src}, "the UTC day of at; reads walk back day by day"},
		{model.Bucket{Kind: model.WeekBucket, Source: src}, "the Monday starting the ISO week of at (UTC); reads walk back week by week"},
		{model.Bucket{Kind: model.WeekBucket, Source: src, Start: 0, StartSet: true}, "the Sunday starting the week of at (UTC); reads walk back week by week"},
		{model.Bucket{Kind: model.MonthBucket, Source: src}, "the first day of the UTC month of at; reads walk back month by month"},
		{model.Bucket{Kind: model.DaysBucket, Source: src, N: 10, Start: 1}, "the first day of the 10-day range (counted from 1970-01-02) holding at; reads walk back range by range"},
	} {
		check(t, bucketWords(&c.b), c.want)
	}
}

func TestQuote(t *testing.T) {
	check(t, Quote("it's"), "'it''s'")
}
