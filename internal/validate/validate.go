// Package validate is the generator's check stage: it reads a model and
// reports every rule of the query-first method the model breaks, each at
// the position in the user's source where it can be fixed.
package validate

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// Check validates a package and returns its diagnostics.
func Check(p *model.Package) diag.List {
	c := &checker{}
	if ks := p.Keyspace; ks != nil {
		c.identifier(ks.Pos, "keyspace", ks.Name)
	}
	c.udts(p)
	tables := map[string]*model.Table{}
	for _, e := range p.Entities {
		c.entity(e)
		for _, t := range e.Tables {
			if first, dup := tables[t.Name]; dup {
				c.diags.Errorf(t.Pos, diag.DuplicateTable, "table %s is declared twice; the first is on %s at %s", t.Name, first.Entity.GoName, diag.Short(first.Pos))
				continue
			}
			tables[t.Name] = t
			if t.Scan && t.Unique {
				c.diags.Errorf(t.ScanPos, diag.BadValue, "scan on %s, a unique table, which holds claims of a key rather than entities: put scan on the source of truth or another table of %s", t.Name, e.GoName)
			}
		}
	}
	if p.Tenant != nil {
		for _, e := range p.Entities {
			for _, t := range e.Tables {
				c.tenant(p.Tenant, e, t)
				c.tenantScan(p.Tenant, t)
			}
		}
	}
	c.indexes(p)
	c.filters(p)
	c.goNames(p)
	c.size(p)
	return c.diags
}

// tenant checks the //cqlgen:tenant rule: every table's partition key
// starts with the tenant column, so that no partition holds two tenants'
// rows and every read names its tenant. A table of data every tenant
// shares says so with ignore:"tenant-key: reason".
func (c *checker) tenant(rule *model.Tenant, e *model.Entity, t *model.Table) {
	if (len(t.PK) > 0 && t.PK[0].Name == rule.Column) || Silenced(t, diag.TenantKey) != nil {
		return
	}
	fix := fmt.Sprintf("write pk:\"%s, ...\"", rule.Column)
	if !slices.ContainsFunc(e.Fields, func(f *model.Field) bool { return f.Column == rule.Column }) {
		fix = fmt.Sprintf("give %s a %s field and write pk:\"%s, ...\"", e.GoName, rule.Column, rule.Column)
	}
	first := "nothing"
	if len(t.PK) > 0 {
		first = t.PK[0].Name
	}
	c.diags.Errorf(t.PKPos, diag.TenantKey, "the partition key of %s starts with %s, not %s, which //cqlgen:tenant at %s requires of every table so that no partition mixes tenants and every read names its tenant: %s, or, for data every tenant shares, ignore:\"tenant-key: why\"",
		t.Name, first, rule.Column, diag.Short(rule.Pos), fix)
}

// tenantScan refuses the table option scan under //cqlgen:tenant: a scan
// reads the table over token ranges, and a token range holds the
// partitions of every tenant, so it would hand one tenant's job every
// tenant's rows. A table of data every tenant shares (ignore:"tenant-key:
// ...") may be scanned.
func (c *checker) tenantScan(rule *model.Tenant, t *model.Table) {
	if !t.Scan || t.Unique || Silenced(t, diag.TenantKey) != nil {
		return
	}
	c.diags.Errorf(t.ScanPos, diag.TenantKey, "scan on %s reads the whole table over token ranges, and a token range holds every tenant's partitions, which //cqlgen:tenant at %s forbids: read one tenant's rows through a pattern keyed by %s, or, for data every tenant shares, ignore:\"tenant-key: why\"",
		t.Name, diag.Short(rule.Pos), rule.Column)
}

type checker struct {
	diags diag.List
}

// identifier checks a name that CQL will read unquoted.
func (c *checker) identifier(pos token.Position, what, name string) {
	switch {
	case name == "":
		c.diags.Errorf(pos, diag.BadIdentifier, "%s name is empty", what)
	case Reserved(strings.ToLower(name)):
		msg := fmt.Sprintf("%s name %q is a reserved CQL keyword; cqlgen refuses it rather than quote it, because a quoted name must then be quoted in every query, by every tool and every team, forever: choose another name", what, name)
		if what == "column" {
			msg += fmt.Sprintf(`; for a column an existing table already has, write db:"%s,quoted" and cqlgen quotes it in every statement it writes`, name)
		}
		c.diags.Errorf(pos, diag.ReservedWord, "%s", msg)
	case what != "table" && what != "keyspace" && strings.HasPrefix(name, cqlspec.ReservedPrefix):
		c.diags.Errorf(pos, diag.BadIdentifier, "%s name %q: names starting with cqlgen_ are reserved for the columns cqlgen adds", what, name)
	case !cqlspec.Plain(name):
		msg := fmt.Sprintf("%s name %q is not a plain CQL identifier (a lower-case letter, then lower-case letters, digits and underscores)", what, name)
		if strings.ToLower(name) != name && cqlspec.Plain(strings.ToLower(name)) {
			msg += fmt.Sprintf("; CQL folds unquoted names to lower case, so write %q", strings.ToLower(name))
			if what == "column" {
				msg += fmt.Sprintf(`, or, for a column an existing table already has under that very name, db:"%s,quoted", and cqlgen quotes it in every statement it writes`, name)
			}
		}
		c.diags.Errorf(pos, diag.BadIdentifier, "%s", msg)
	case what != "column" && what != "field" && len(name) > maxNameLength:
		c.diags.Errorf(pos, diag.BadIdentifier, "%s name %q is %d characters long; Cassandra accepts at most %d", what, name, len(name), maxNameLength)
	}
}

// quotedColumn checks a column name given with db:"name,quoted": one CQL
// reads only in double quotes, and that cqlgen can write quoted in every
// statement: letters, digits and underscores, from a letter.
func (c *checker) quotedColumn(f *model.Field) {
	name := f.Column
	switch {
	case cqlspec.Owned(name):
		c.diags.Errorf(f.ColPos, diag.BadIdentifier, "column name %q: names starting with cqlgen_ are reserved for the columns cqlgen adds", name)
	case !cqlspec.Quotable(name):
		c.diags.Errorf(f.ColPos, diag.BadIdentifier, "column name %q cannot be quoted by cqlgen: a quoted name holds letters of either case, digits and underscores, from a letter", name)
	case !cqlspec.NeedsQuotes(name):
		c.diags.Errorf(f.QuotedPos, diag.BadIdentifier, "column name %q needs no quotes: drop ,quoted from its db tag", name)
	}
}

func (c *checker) entity(e *model.Entity) {
	for _, f := range e.Fields {
		if f.Quoted {
			c.quotedColumn(f)
		} else {
			c.identifier(f.ColPos, "column", f.Column)
		}
		c.uniqueField(f)
		c.openList(e, f)
	}
	if len(e.Tables) == 0 {
		return
	}
	var canon []*model.Table
	for _, t := range e.Tables {
		if t.Canonical {
			canon = append(canon, t)
		}
		if !token.IsIdentifier(t.Method) || !token.IsExported(t.Method) {
			c.diags.Errorf(t.MethodPos, diag.BadIdentifier, "read method name %q is not an exported Go identifier", t.Method)
		}
	}
	switch {
	case len(canon) > 1:
		for _, t := range canon[1:] {
			c.diags.Errorf(t.Pos, diag.TwoCanonical, "%s has two canonical patterns, %s and %s; only one table can be the source of truth", e.GoName, canon[0].Name, t.Name)
		}
	case len(canon) == 0 && len(e.Tables) > 1:
		names := make([]string, len(e.Tables))
		for i, t := range e.Tables {
			names[i] = t.Name
		}
		c.diags.Errorf(e.Pos, diag.NoCanonical, "%s is stored in %d tables (%s) and none is marked as its source of truth; mark one with table:\"name,canonical\"", e.GoName, len(e.Tables), strings.Join(names, ", "))
	}
	for _, t := range e.Tables {
		c.table(e, t)
		if t.Immutable && t != e.Canonical {
			c.diags.Errorf(t.ImmutablePos, diag.BadValue, "immutable describes an entity and goes on its source of truth, not on %s; mark the canonical pattern instead", t.Name)
		}
	}
	c.canonicalComplete(e)
	c.transactional(e)
	c.sharedStatics(e)
	c.counterEntity(e)
	c.times(e)
}

// sharedStatics refuses a static column that another table of the entity
// stores other than static under the same partition key. A static holds
// one value for every row of its partition, so a write of one entity that
// changes it changes it for all the others there; a table that stores it
// per row, or shares it among other rows, keeps the others' old value
// (rows under the old key, or an old value shown), and re-keying them all
// would turn one bounded write into a write of the whole partition.
func (c *checker) sharedStatics(e *model.Entity) {
	if len(e.Tables) < 2 {
		return
	}
	for _, t := range e.Tables {
		for _, r := range t.Static {
			col := t.ColumnOf(r.Field)
			if r.Field == nil || col == nil || col.Kind != model.Static {
				continue // not a static (reported by table)
			}
			for _, o := range e.Tables {
				oc := o.ColumnOf(r.Field)
				if o == t || oc == nil || (oc.Kind == model.Static && samePartition(t, o)) {
					continue
				}
				how := "per row"
				switch {
				case oc.Kind == model.PartitionKey:
					how = "per row, in its partition key"
				case oc.Kind == model.Clustering:
					how = "per row, in its clustering key"
				case oc.Kind == model.Static:
					how = "static under another partition key (" + keyNames(o) + ")"
				}
				c.diags.Errorf(r.Pos, diag.BadStatic, "column %s is static in %s, one value for every row of a partition (%s), but %s stores it %s: a write of one %s that changed it would change it for every other %s of the partition in %s, while their rows in %s keep the old value; keep %s per row (drop it from static), so each row's copy moves with its row, or stop storing it in %s, or model what the partition shares as an entity of its own",
					r.Name, t.Name, keyNames(t), o.Name, how, e.GoName, e.GoName, t.Name, o.Name, r.Name, o.Name)
			}
		}
	}
}

// samePartition reports whether two tables group rows into partitions by
// the same columns.
func samePartition(a, b *model.Table) bool {
	x, y := partitionNames(a), partitionNames(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// keyNames is a table's partition key, in words.
func keyNames(t *model.Table) string { return strings.Join(partitionNames(t), ", ") }

// partitionNames are a table's partition key columns, the bucket by its
// expression.
func partitionNames(t *model.Table) []string {
	var names []string
	for _, c := range t.PartitionKey() {
		if c.Bucket != nil {
			names = append(names, c.Bucket.Expr())
		} else {
			names = append(names, c.Name)
		}
	}
	return names
}

// counterEntity checks that an entity with a counter table is stored in
// that table alone. Keeping two tables in step takes writes that can be
// sent again until every table has them, and a counter update cannot be
// sent again without counting twice; nor can a counter table be rebuilt
// from another table by repair.
func (c *checker) counterEntity(e *model.Entity) {
	if len(e.Tables) < 2 {
		return
	}
	for _, t := range e.Tables {
		if !t.HasCounters() {
			continue
		}
		c.diags.Errorf(t.Pos, diag.CounterTable, "table %s holds counters, but %s is stored in %d tables: a counter update is not idempotent, so it cannot be sent again until every table has it, and no table can be rebuilt from another; declare the counters as an entity of their own, stored in %s alone, and call its Add beside %s's writes",
			t.Name, e.GoName, len(e.Tables), t.Name, e.GoName)
	}
}

func (c *checker) ref(t *model.Table, r model.Ref, what string) bool {
	if r.Field != nil {
		return true
	}
	c.unknownColumn(r, what, t.Entity)
	return false
}

func (c *checker) table(e *model.Entity, t *model.Table) {
	c.identifier(t.Pos, "table", t.Name)

	// Keys: every name known, none twice, none of a type a key cannot take.
	switch {
	case len(t.PK) > 0 || t.BucketOnly():
	case t.Bucket != nil:
		c.diags.Errorf(t.PKPos, diag.NoPartitionKey, "table %s has no partition key but a hash bucket, which alone would split nothing of the query's choosing; name the columns the query filters on with pk:\"...\", or, for a feed of the whole system, make a time bucket the partition key alone", t.Name)
	default:
		c.diags.Errorf(t.PKPos, diag.NoPartitionKey, "table %s has no partition key; name the columns the query filters on with pk:\"...\", or, for a feed of the whole system read newest first, let a time bucket alone be the partition key: bucket:\"day(col)\" without pk", t.Name)
	}
	seen := map[string]string{}
	key := func(r model.Ref, part string) {
		if !c.ref(t, r, part) {
			return
		}
		if prev, dup := seen[r.Name]; dup {
			if prev == part {
				c.diags.Errorf(r.Pos, diag.RepeatedKey, "column %s appears twice in the %s of %s", r.Name, part, t.Name)
			} else {
				c.diags.Errorf(r.Pos, diag.RepeatedKey, "column %s is already in the %s of %s; a clustering column cannot repeat a partition key column", r.Name, prev, t.Name)
			}
			return
		}
		seen[r.Name] = part
		c.keyType(t, r)
	}
	for _, r := range t.PK {
		key(r, "partition key")
	}
	for _, r := range t.CK {
		key(r.Ref, "clustering key")
	}

	c.bucket(t, seen)

	for _, r := range t.Cols {
		c.ref(t, r, "cols")
	}
	for _, r := range t.Static {
		if !c.ref(t, r, "static") {
			continue
		}
		switch {
		case seen[r.Name] != "":
			c.diags.Errorf(r.Pos, diag.BadStatic, "column %s is in the %s of %s, so it cannot be static", r.Name, seen[r.Name], t.Name)
		case len(t.CK) == 0:
			c.diags.Errorf(r.Pos, diag.BadStatic, "table %s has no clustering columns, so a static column means nothing: every partition holds one row", t.Name)
		}
	}

	c.prefix(t)
	c.counters(t)
	c.where(e, t)
	c.unique(e, t)
	c.deprecated(e, t)
	c.identity(e, t)
	c.partition(t)
	c.options(t)
}

func (c *checker) keyType(t *model.Table, r model.Ref) {
	f := r.Field
	if f.Type == nil {
		return
	}
	switch {
	case f.Type.Name == "counter":
		c.diags.Errorf(r.Pos, diag.CounterKey, "column %s is a counter and cannot be part of the primary key of %s", r.Name, t.Name)
	case f.Type.IsCollection() && !f.Type.Frozen:
		c.diags.Errorf(r.Pos, diag.CollectionKey, "column %s is a %s, and a collection can be part of a primary key only frozen: declare the field cql:\"frozen<%s>\" to key %s by the whole value (it is then frozen in every table and replaced whole)", r.Name, f.Type, f.Type, t.Name)
	case f.Type.Name == "duration":
		c.diags.Errorf(r.Pos, diag.KeyType, "column %s is a duration, which Cassandra cannot order and refuses in a primary key", r.Name)
	case f.Type.IsVector():
		c.diags.Errorf(r.Pos, diag.KeyType, "column %s is a %s, an embedding to search by similarity, not a key: find rows by it with an index pattern, match:\"ann\"", r.Name, f.Type)
	case f.Nullable:
		c.diags.Errorf(r.Pos, diag.NullableKey, "column %s is a pointer field, but a primary key column can never be null; use a value type", r.Name)
	case f.Type.UDT != nil:
		c.udtKey(r, f.Type.UDT)
	}
}

func (c *checker) bucket(t *model.Table, key map[string]string) {
	b := t.Bucket
	if b == nil {
		return
	}
	c.identifier(b.ColumnPos, "bucket column", b.Column)
	for _, f := range t.Entity.Fields {
		if f.Column == b.Column {
			c.diags.Errorf(b.ColumnPos, diag.BadBucket, "bucket column %s has the name of a column of %s; name it with \"... as name\"", b.Column, t.Entity.GoName)
		}
	}
	f := b.Source.Field
	if f == nil {
		msg := fmt.Sprintf("bucket %s: unknown column %q; the bucket must be derived from a column of %s", b.Expr(), b.Source.Name, t.Entity.GoName)
		if f := likelyField(b.Source.Name, t.Entity); f != nil {
			msg += fmt.Sprintf("; did you mean %s (field %s)?", f.Column, f.GoName)
		}
		c.diags.Errorf(b.Source.Pos, diag.BadBucket, "%s", msg)
		return
	}
	if f.Type == nil {
		return
	}
	if f.Nullable {
		c.diags.Errorf(b.Source.Pos, diag.BadBucket, "bucket %s: column %s is a pointer field, and a bucket cannot be derived from a value that may be missing", b.Expr(), b.Source.Name)
		return
	}
	if t.Entity.Canonical == t && key[b.Source.Name] == "" {
		// Get, Delete and GetVersioned are given the primary key alone:
		// a bucket derived from another column would send them to the
		// bucket of its zero value, where they find nothing (and an
		// Update that changes the column would leave the old row).
		c.diags.Errorf(b.Source.Pos, diag.BadBucket, "bucket %s: column %s is not in the primary key of %s, the source of truth, so a Get or Delete given the key alone could not tell which bucket holds the row; derive the bucket from a clustering column, or add %s to ck", b.Expr(), b.Source.Name, t.Name, b.Source.Name)
		return
	}
	typ := f.Type.String()
	if b.Kind == model.HashBucket {
		switch {
		case !model.Hashable(f.Type):
			c.diags.Errorf(b.Source.Pos, diag.BadBucket, "bucket %s: column %s is a %s; a hash bucket needs a text, integer (up to bigint), uuid, blob, date, timestamp or boolean column", b.Expr(), b.Source.Name, typ)
		case key[b.Source.Name] == "partition key":
			c.diags.Errorf(b.Source.Pos, diag.BadBucket, "bucket %s: %s is already in the partition key, so hashing it cannot split a partition; hash a clustering column", b.Expr(), b.Source.Name)
		}
		if b.N < 1 || b.N > maxHashBuckets {
			c.diags.Errorf(b.NPos, diag.BadBucket, "bucket %s: a hash bucket count must be between 1 and %d; every read queries all of them", b.Expr(), maxHashBuckets)
		}
		return
	}
	switch {
	case typ == "timestamp" || typ == "timeuuid":
	case typ == "date" && b.Kind != model.HourBucket:
	default:
		c.diags.Errorf(b.Source.Pos, diag.BadBucket, "bucket %s: column %s is a %s; a time bucket needs a timestamp or timeuuid column (or a date, for day buckets and wider)", b.Expr(), b.Source.Name, typ)
	}
	if b.Kind == model.DaysBucket && (b.N < 1 || b.N > 3660) {
		c.diags.Errorf(b.NPos, diag.BadBucket, "bucket %s: the width must be between 1 and 3660 days", b.Expr())
	}
}

// maxHashBuckets bounds the fan-out of one read.
const maxHashBuckets = 4096

// counters checks the rule that a table with counters holds nothing else.
func (c *checker) counters(t *model.Table) {
	var counters, others []string
	for _, col := range t.Columns {
		if col.Kind == model.PartitionKey || col.Kind == model.Clustering || col.Type == nil {
			continue
		}
		if col.Type.Name == "counter" {
			counters = append(counters, col.Name)
		} else {
			others = append(others, col.Name)
		}
	}
	if len(counters) == 0 {
		return
	}
	if len(others) > 0 {
		c.diags.Errorf(t.Pos, diag.CounterTable, "table %s mixes counters (%s) with other columns (%s); in a counter table every column outside the primary key must be a counter: list the columns it stores with cols:\"...\"", t.Name, strings.Join(counters, ", "), strings.Join(others, ", "))
	}
	if t.TTL > 0 {
		c.diags.Errorf(t.TTLPos, diag.CounterTable, "table %s holds counters, which cannot expire: Cassandra refuses a TTL on a counter table", t.Name)
	}
}

// uniqueField checks that a column declared unique on its own is of a type
// whose values can be: a uuid or timeuuid, made fresh for each entity.
func (c *checker) uniqueField(f *model.Field) {
	if !f.Unique || f.Type == nil || f.Type.Name == "uuid" || f.Type.Name == "timeuuid" {
		return
	}
	c.diags.Errorf(f.UniquePos, diag.BadUnique, "field %s is a %s, but only a uuid or timeuuid can be declared unique on its own: cqlgen cannot check that other values never repeat, and nothing makes them; add the columns that make a row unique to ck instead, or key by a uuid", f.GoName, f.Type)
}

// identity checks that each table's primary key tells two entities apart.
func (c *checker) identity(e *model.Entity, t *model.Table) {
	if t.Unique {
		return // one entity per key is what a unique table keeps
	}
	if len(t.ID) > 0 && !t.Canonical && e.Canonical != t {
		c.projectionID(e, t)
		return
	}
	canon := e.Canonical
	if canon == nil {
		return
	}
	inKey := map[*model.Field]bool{}
	for _, r := range t.PK {
		inKey[r.Field] = true
	}
	for _, r := range t.CK {
		inKey[r.Field] = true
	}
	if t == canon {
		for _, r := range t.ID {
			if c.ref(t, r, "id") && !inKey[r.Field] {
				c.diags.Errorf(r.Pos, diag.BadID, "id column %s is not in the primary key of %s, so the source of truth could hold one entity in several rows", r.Name, t.Name)
			}
		}
		return
	}
	if uniqueKey(t) != nil {
		return // no two entities share the value of a unique column
	}
	if inKey[nil] {
		return // a key column is unknown, reported as such: what the key lacks is not known yet
	}
	var missing []string
	for _, f := range e.Identity() {
		if !inKey[f] {
			missing = append(missing, f.Column)
		}
	}
	if len(missing) == 0 {
		return
	}
	c.diags.Errorf(t.Pos, diag.NotUnique, "the primary key of %s lacks %s, which the source of truth %s uses to tell two %s entities apart, so different entities could overwrite each other's row; add %s to ck, or, if fewer columns identify %s, say which with id:\"...\" on %s. (If %s is meant to hold one %s per key, a unique alternate key such as a login email, declare it table:\"%s,unique\": writes then claim the key.)",
		t.Name, strings.Join(missing, ", "), canon.Name, e.GoName, strings.Join(missing, ", "), e.GoName, canon.Name, t.Name, e.GoName, t.Name)
}

// uniqueKey is a column of t's primary key declared unique on its own,
// or nil.
func uniqueKey(t *model.Table) *model.Field {
	for _, r := range t.PK {
		if r.Field != nil && r.Field.Unique {
			return r.Field
		}
	}
	for _, r := range t.CK {
		if r.Field != nil && r.Field.Unique {
			return r.Field
		}
	}
	return nil
}

// projectionID checks an id on a table other than the source of truth: it
// may name only a column unique on its own, in that table's key, which
// then tells the table's rows apart by itself.
func (c *checker) projectionID(e *model.Entity, t *model.Table) {
	inKey := map[*model.Field]bool{}
	for _, r := range t.PK {
		inKey[r.Field] = true
	}
	for _, r := range t.CK {
		inKey[r.Field] = true
	}
	for _, r := range t.ID {
		switch {
		case !c.ref(t, r, "id"):
		case !r.Field.Unique:
			c.diags.Errorf(r.Pos, diag.BadID, "id on %s, which is not the source of truth of %s, can name only a column unique on its own (a uuid or timeuuid declared cql:\"timeuuid,unique\"), and %s is not; put the columns that identify %s in id on its canonical pattern instead", t.Name, e.GoName, r.Name, e.GoName)
		case !inKey[r.Field]:
			c.diags.Errorf(r.Pos, diag.BadID, "id column %s is not in the primary key of %s, so it cannot tell the table's rows apart; add it to ck", r.Name, t.Name)
		}
	}
}

// canonicalComplete checks that the source of truth of an entity stored in
// several tables holds every column the other tables hold: Update, Delete
// and repair derive those tables' rows from it, so a column it lacks
// would come back as a zero value (a key that finds no row, or a value
// wiped).
func (c *checker) canonicalComplete(e *model.Entity) {
	canon := e.Canonical
	if canon == nil || len(e.Tables) < 2 {
		return
	}
	refs := append(slices.Clone(canon.PK), canon.Cols...)
	for _, r := range canon.CK {
		refs = append(refs, r.Ref)
	}
	if slices.ContainsFunc(refs, func(r model.Ref) bool { return r.Field == nil }) {
		return // an unknown column, reported as such: what the source of truth stores is not known yet
	}
	has := map[*model.Field]bool{}
	for _, col := range canon.Columns {
		if col.Field != nil {
			has[col.Field] = true
		}
	}
	for _, t := range e.Tables {
		if t == canon {
			continue
		}
		var missing []string
		for _, col := range t.Columns {
			if col.Field != nil && !has[col.Field] && col.Type.String() != "counter" { // counterEntity reports those
				missing = append(missing, col.Name)
				has[col.Field] = true // reported once
			}
		}
		if len(missing) > 0 {
			c.diags.Errorf(canon.Pos, diag.CanonicalIncomplete, "table %s stores %s, which the source of truth %s leaves out: the rows of %s are derived from %s on every change, so add %s to its cols (or drop cols to store every column)",
				t.Name, strings.Join(missing, ", "), canon.Name, t.Name, canon.Name, strings.Join(missing, ", "))
		}
	}
}

// MaxPatterns is how many access patterns a package may declare before
// cqlgen warns about the size of its generated file. Measured on 2 cores
// (bench BenchmarkBuildGenerated): 200 patterns generate 1.7 MB that go
// build compiles in 6 s, 2,000 patterns 17 MB in 66 s.
const MaxPatterns = 500

// size warns when a package's generated file would slow every build.
func (c *checker) size(p *model.Package) {
	n := 0
	for _, e := range p.Entities {
		for _, t := range e.Tables {
			if n++; n == MaxPatterns+1 {
				c.diags.Warnf(t.Pos, diag.GeneratedSize, "package %s declares more than %d access patterns: its generated file grows about 8.5 KB and 30 ms of go build a pattern (2,000 patterns: 17 MB, 66 s); split the entities into several packages", p.Name, MaxPatterns)
			}
		}
	}
}

// prefix checks a table's prefix key: the clustering columns a read may
// fix by equality must be its first ones, in order, and leave at least one
// to bound.
func (c *checker) prefix(t *model.Table) {
	if len(t.Prefix) == 0 {
		return
	}
	var ck []string
	for _, k := range t.CK {
		ck = append(ck, k.Name)
	}
	if t.Unique {
		c.diags.Errorf(t.PrefixPos, diag.BadPrefix, "table %s is unique: its read returns the one entity that holds a key, so there is no range to narrow; remove prefix", t.Name)
		return
	}
	for i, r := range t.Prefix {
		if !c.ref(t, r, "prefix") {
			return
		}
		switch {
		case !slices.Contains(ck, r.Name):
			c.diags.Errorf(r.Pos, diag.BadPrefix, "prefix: %s is not a clustering column of %s; a read fixes clustering columns from the first, in order (ck: %s)", r.Name, t.Name, strings.Join(ck, ", "))
			return
		case ck[i] != r.Name:
			c.diags.Errorf(r.Pos, diag.BadPrefix, "prefix: %s is clustering column %d of %s, not %d: a read can fix a column only with every one before it, so name them from the first, in order (prefix:\"%s\")", r.Name, slices.Index(ck, r.Name)+1, t.Name, i+1, strings.Join(ck[:slices.Index(ck, r.Name)+1], ", "))
			return
		}
	}
	if len(t.Prefix) >= len(ck) {
		fix := "remove prefix"
		if len(ck) > 1 {
			fix = fmt.Sprintf("prefix:\"%s\"", strings.Join(ck[:len(ck)-1], ", "))
		}
		c.diags.Errorf(t.PrefixPos, diag.BadPrefix, "prefix fixes every clustering column of %s, which leaves nothing to bound (a read of one row by its whole key is Get): %s", t.Name, fix)
	}
}

// openList warns of a column declared list<T> (not frozen): each element
// is a cell whose path is a timeuuid the coordinator draws, so a row
// written again at the same timestamp (a retried write, a pending change
// carried out again) gets its elements again, and the tombstone that
// clears the old value, at the timestamp less one, does not cover them.
// Tables that silence open-list (a deployed column kept as it is) are
// left out.
func (c *checker) openList(e *model.Entity, f *model.Field) {
	if f.OpenListPos.Line == 0 || f.Type == nil || f.Type.Name != "list" || f.Type.Frozen {
		return
	}
	var tables []string
	for _, t := range e.Tables {
		for _, col := range t.Columns {
			if col.Field == f && Silenced(t, diag.OpenList) == nil {
				tables = append(tables, t.Name)
				break
			}
		}
	}
	if len(tables) == 0 {
		return
	}
	frozen := *f.Type
	frozen.Frozen = true
	c.diags.Warnf(f.OpenListPos, diag.OpenList, "field %s: %s is a non-frozen list (tables %s): each element is a cell of its own, keyed by a timeuuid the coordinator draws, so when a row is written again at the same timestamp (a retried write after a lost reply, a pending change carried out again by the next writer) its elements are appended again, and reads return them twice; leave out the cql tag (a slice is stored as %s, one cell a rewrite keeps as it is), or store it as a set if order and repeats do not matter; keep %s only for a column already deployed so, and silence this with ignore:\"open-list: <reason>\" on its tables (docs/grammar.md, \"Lists\")",
		f.GoName, f.Type, strings.Join(tables, ", "), &frozen, f.Type)
}
