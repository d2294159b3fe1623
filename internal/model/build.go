package model

import (
	"go/token"
	"go/types"
	"slices"
	"strings"
	"unicode"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/load"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// Build turns one loaded package into a model. It parses every tag, maps
// every field's type and resolves every column name it can; mistakes of
// syntax and type are returned as diagnostics, and names it cannot resolve
// are left with a nil Field for the validate stage to report.
func Build(lp *load.Package, cfg Config) (*Package, diag.List) {
	b := &builder{lp: lp, udts: map[*types.TypeName]*UDT{}, reading: map[*UDT]bool{}, driverUses: map[string]driverUse{}}
	p := &Package{Path: lp.Path, Name: lp.Name, Dir: lp.Dir, Declared: lp.Declared}
	for _, e := range lp.Errors {
		b.diags.Errorf(e.Pos, diag.Load, "%s", e.Msg)
	}
	p.Keyspace, p.Tenant = b.directives()
	p.Cassandra, p.CassandraPos = b.cassandraVersion()
	for _, s := range lp.Entities {
		if e := b.entity(s); e != nil {
			p.Entities = append(p.Entities, e)
		}
	}
	p.UDTs = b.order
	p.Driver = b.driver(cfg.Driver)
	assignNames(p)
	return p, b.diags
}

type builder struct {
	lp    *load.Package
	diags diag.List
	// The user-defined types read so far, by Go type; those being read,
	// to refuse a type that holds itself; and all of them, each after
	// those it holds.
	udts    map[*types.TypeName]*UDT
	reading map[*UDT]bool
	order   []*UDT
	// driverUses are, by driver import path, the first field whose type
	// is made of that driver's types.
	driverUses map[string]driverUse
	// consts are the package-level constants of each package a field's
	// type comes from, in name order, read once (see pkgConsts).
	consts map[*types.Package][]*types.Const
}

// pkgConsts returns the constants declared in pkg's scope, in name
// order, reading the scope once a build: with a field of time.Time in
// every entity, reading it for each field was a tenth of the build.
func (b *builder) pkgConsts(pkg *types.Package) []*types.Const {
	if cs, ok := b.consts[pkg]; ok {
		return cs
	}
	var cs []*types.Const
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if c, ok := scope.Lookup(name).(*types.Const); ok {
			cs = append(cs, c)
		}
	}
	if b.consts == nil {
		b.consts = map[*types.Package][]*types.Const{}
	}
	b.consts[pkg] = cs
	return cs
}

func (b *builder) tagPos(f *load.Field, off int) token.Position {
	return b.lp.TagPosition(f, off)
}

func (b *builder) tagErrors(f *load.Field, errs []*tag.Error) {
	for _, e := range errs {
		b.diags.Errorf(b.tagPos(f, e.Off), diag.Code(e.Code), "%s", e.Msg)
	}
}

func (b *builder) directives() (*Keyspace, *Tenant) {
	var ks *Keyspace
	var tenant *Tenant
	for _, d := range b.lp.Directives {
		switch d.Name {
		case "keyspace":
			name, repl, _ := strings.Cut(d.Args, " ")
			repl = strings.TrimSpace(repl)
			switch {
			case ks != nil:
				b.diags.Errorf(d.Pos, diag.BadDirective, "a second //cqlgen:keyspace directive; the first is at %s", diag.Short(ks.Pos))
			case name == "" || repl == "":
				b.diags.Errorf(d.Pos, diag.BadDirective, "//cqlgen:keyspace wants a name and a replication map, e.g. //cqlgen:keyspace music {'class': 'NetworkTopologyStrategy', 'dc1': 3}")
			default:
				canon, err := parseReplication(repl)
				if err != nil {
					b.diags.Errorf(d.Pos, diag.BadDirective, "//cqlgen:keyspace %s: %v; schema.cql carries the map, so it must be a replication map and nothing else, e.g. {'class': 'NetworkTopologyStrategy', 'dc1': 3}", name, err)
					break
				}
				ks = &Keyspace{Name: name, Replication: canon, Pos: d.Pos}
			}
		case "tenant":
			switch {
			case tenant != nil:
				b.diags.Errorf(d.Pos, diag.BadDirective, "a second //cqlgen:tenant directive; the first is at %s", diag.Short(tenant.Pos))
			case d.Args == "" || strings.ContainsAny(d.Args, " \t,"):
				b.diags.Errorf(d.Pos, diag.BadDirective, "//cqlgen:tenant wants one column name, the one every partition key starts with, e.g. //cqlgen:tenant tenant_id")
			default:
				tenant = &Tenant{Column: d.Args, Pos: d.Pos}
			}
		case "udt":
			b.udtDirective(d)
		case "cassandra":
			// read by cassandraVersion
		default:
			b.diags.Errorf(d.Pos, diag.BadDirective, "unknown directive //cqlgen:%s (there are //cqlgen:keyspace, //cqlgen:tenant, //cqlgen:cassandra and //cqlgen:udt)", d.Name)
		}
	}
	return ks, tenant
}

// cassandraVersion reads the //cqlgen:cassandra directive: the version
// the package targets, DefaultCassandra without one.
func (b *builder) cassandraVersion() (string, token.Position) {
	v, pos, seen := DefaultCassandra, token.Position{}, false
	for _, d := range b.lp.Directives {
		if d.Name != "cassandra" {
			continue
		}
		switch {
		case seen:
			b.diags.Errorf(d.Pos, diag.BadDirective, "a second //cqlgen:cassandra directive; the first is at %s", diag.Short(pos))
		case !slices.Contains(CassandraVersions, d.Args):
			b.diags.Errorf(d.Pos, diag.BadDirective, "//cqlgen:cassandra %q: the versions cqlgen targets are %s (the default is %s); write e.g. //cqlgen:cassandra 6.0", d.Args, strings.Join(CassandraVersions, " and "), DefaultCassandra)
		default:
			v = d.Args
		}
		if !seen {
			seen, pos = true, d.Pos
		}
	}
	return v, pos
}

func (b *builder) entity(s *load.Struct) *Entity {
	if s.Generic {
		b.diags.Errorf(s.Pos, diag.UnsupportedField, "entity %s has type parameters; an entity must be a plain struct", s.Name)
		return nil
	}
	if s.Constraint != "" {
		b.diags.Errorf(s.Pos, diag.BuildConstraint, "entity %s is declared in a file with the build constraint %q, but cqlgen writes one file for the package, which would not carry it; declare entities in files every build includes", s.Name, s.Constraint)
		return nil
	}
	e := &Entity{GoName: s.Name, Pos: s.Pos, Doc: s.Doc}
	byColumn := map[string]*Field{}
	for _, f := range b.reachable(b.fields(s.Fields, s.Type), s.Type) {
		if prev, dup := byColumn[f.Column]; dup {
			b.diags.Errorf(f.ColPos, diag.DuplicateColumn, "fields %s and %s both map to column %q", prev.GoName, f.GoName, f.Column)
			continue
		}
		if f.defaultList {
			// A Go slice is one value, written whole: a column of one
			// cell keeps a row rewritten at the same timestamp as it was,
			// where a non-frozen list would append its elements again.
			// A user-defined type's list stays as it is: the type is
			// frozen, and its lists with it.
			f.Type.Frozen = true
		}
		byColumn[f.Column] = f
		e.Fields = append(e.Fields, f)
	}
	for _, lf := range s.Fields {
		if !lf.Marker {
			continue
		}
		if t := b.table(e, lf, byColumn); t != nil {
			e.Tables = append(e.Tables, t)
		}
	}
	var marked []*Table
	for _, t := range e.Tables {
		if t.Canonical {
			marked = append(marked, t)
		}
	}
	switch {
	case len(marked) == 1:
		e.Canonical = marked[0]
	case len(marked) == 0 && len(e.Tables) == 1:
		e.Canonical = e.Tables[0]
	}
	for _, t := range e.Tables {
		if t.Immutable && t == e.Canonical {
			e.Immutable, e.ImmutablePos = true, t.ImmutablePos
		}
		if t.Transactional && t == e.Canonical {
			e.Transactional, e.TransactionalPos = true, t.TransactionalPos
		}
	}
	for _, t := range e.Tables {
		t.Columns = layout(e, t)
		for _, r := range e.Tables {
			if t.ReplacedByName != "" && r.Name == t.ReplacedByName && r != t {
				t.ReplacedBy = r
			}
		}
	}
	for _, ix := range e.Indexes {
		resolveOn(e, ix)
	}
	for _, f := range e.Filters {
		resolveFilter(e, f)
	}
	for _, ix := range e.Indexes {
		resolveANNFilter(e, ix)
	}
	return e
}

func (b *builder) field(lf *load.Field) *Field {
	if lf.Name == "_" {
		return nil
	}
	var ft tag.Field
	if lf.Tag != "" {
		var errs []*tag.Error
		ft, errs = tag.ParseField(lf.Tag)
		b.tagErrors(lf, errs)
	}
	if ft.Skip {
		return nil
	}
	if !token.IsExported(lf.Name) {
		if ft.Column != nil {
			b.diags.Errorf(lf.Pos, diag.UnsupportedField, "field %s is unexported, so gocql cannot read or write it; export it or remove its db tag", lf.Name)
		}
		return nil
	}
	f := &Field{GoName: lf.Name, Pos: lf.Pos, ColPos: lf.Pos, Go: lf.Type, GoType: GoTypeOf(lf.Type), enum: b.enumConsts(lf.Type)}
	if ft.Column != nil {
		f.Column, f.ColPos = ft.Column.Name, b.tagPos(lf, ft.Column.Off)
		if ft.Quoted != nil {
			f.Quoted, f.QuotedPos = true, b.tagPos(lf, ft.Quoted.Off)
		}
	} else {
		col, ok := SnakeCase(lf.Name)
		if !ok {
			b.diags.Errorf(lf.Pos, diag.BadIdentifier, "field %s has no ASCII column name; give one with db:\"...\"", lf.Name)
			return nil
		}
		f.Column = col
	}
	if lf.Type == nil {
		b.diags.Errorf(lf.Pos, diag.Load, "field %s: %s", lf.Name, lf.TypeErr)
		return f
	}
	b.noteDriverTypes(lf.Name, lf.Pos, lf.Type)
	ct, nullable, err := mapType(lf.Type, ft.Type, b.udt)
	if err != nil {
		pos, code := lf.Pos, diag.UnsupportedType
		if err.override {
			pos, code = b.tagPos(lf, ft.Type.Off), diag.BadTypeOverride
		}
		b.diags.Errorf(pos, code, "field %s: %s", lf.Name, err.msg)
		return f
	}
	f.Type, f.Nullable = ct, nullable
	if ct.Name == "list" && !ct.Frozen {
		if ft.Type == nil {
			f.defaultList = true
		} else {
			f.OpenListPos = b.tagPos(lf, ft.Type.Off)
		}
	}
	if ft.Unique != nil {
		f.Unique, f.UniquePos = true, b.tagPos(lf, ft.Unique.Off)
	}
	if ft.TTL != nil {
		f.TTL, f.TTLPos = true, b.tagPos(lf, ft.TTL.Off)
	}
	if ft.Writetime != nil {
		f.Writetime, f.WritetimePos = true, b.tagPos(lf, ft.Writetime.Off)
	}
	if ft.Mask != nil {
		f.MaskPos = b.tagPos(lf, ft.Mask.Off)
		mask, msg := maskCQL(ft.Mask, ct)
		if msg != "" {
			b.diags.Errorf(f.MaskPos, diag.BadMask, "field %s: %s", lf.Name, msg)
		}
		f.Mask = mask
	}
	f.Constants = b.constants(lf.Type)
	return f
}

func (b *builder) table(e *Entity, lf *load.Field, byColumn map[string]*Field) *Table {
	tp, errs := tag.ParsePattern(lf.Tag)
	b.tagErrors(lf, errs)
	if tp == nil {
		return nil
	}
	if tp.Index != nil {
		if ix := b.index(e, lf, tp, byColumn); ix != nil {
			for _, d := range e.Indexes {
				if d.Name == ix.Name && d.Declares() {
					ix.Declared = d
				}
			}
			e.Indexes = append(e.Indexes, ix)
		}
		return nil
	}
	if tp.Filter != nil {
		e.Filters = append(e.Filters, b.filter(e, lf, tp, byColumn))
		return nil
	}
	pos := func(off int) token.Position { return b.tagPos(lf, off) }
	ref := func(id tag.Ident) Ref {
		return Ref{Name: id.Name, Pos: pos(id.Off), Field: byColumn[id.Name]}
	}
	refs := func(ids []tag.Ident) []Ref {
		if ids == nil {
			return nil
		}
		rs := make([]Ref, len(ids))
		for i, id := range ids {
			rs[i] = ref(id)
		}
		return rs
	}
	t := &Table{
		Entity:    e,
		Name:      tp.Table.Name,
		Pos:       pos(tp.Table.Off),
		Canonical: tp.Canonical,
		Doc:       tp.Doc,
		PK:        refs(tp.PK),
		PKPos:     pos(tp.PKOff),
		TTL:       tp.TTL,
		TTLPos:    pos(tp.TTLOff),
		Cols:      refs(tp.Cols),
		Static:    refs(tp.Static),
		Prefix:    refs(tp.Prefix),
		PrefixPos: pos(tp.PrefixOff),
		ID:        refs(tp.ID),
		IDPos:     pos(tp.IDOff),
	}
	if tp.Immutable {
		t.Immutable, t.ImmutablePos = true, pos(tp.ImmutableOff)
	}
	if tp.Unique {
		t.Unique, t.UniquePos = true, pos(tp.UniqueOff)
	}
	if tp.Transactional {
		t.Transactional, t.TransactionalPos = true, pos(tp.TransactionalOff)
	}
	if tp.Deprecated {
		t.Deprecated, t.DeprecatedPos = true, pos(tp.DeprecatedOff)
	}
	if tp.Scan {
		t.Scan, t.ScanPos = true, pos(tp.ScanOff)
	}
	if tp.ReplacedBy.Name != "" {
		t.ReplacedByName, t.ReplacedByPos = tp.ReplacedBy.Name, pos(tp.ReplacedBy.Off)
	}
	if t.Cols == nil && tp.Cols != nil {
		t.Cols = []Ref{}
	}
	for _, kc := range tp.CK {
		t.CK = append(t.CK, KeyRef{Ref: ref(kc.Ident), Desc: kc.Desc})
	}
	t.Method, t.MethodPos = GoName(t.Name), t.Pos
	if tp.Name.Name != "" {
		t.Method, t.MethodPos = tp.Name.Name, pos(tp.Name.Off)
	}
	if tb := tp.Bucket; tb != nil {
		t.Bucket = &Bucket{
			Kind:      BucketKind(tb.Kind),
			Source:    ref(tb.Source),
			N:         tb.N,
			NPos:      pos(tb.NOff),
			Column:    tb.Column.Name,
			ColumnPos: pos(tb.Off),
			Pos:       pos(tb.Off),
			Start:     tb.Start,
			StartSet:  tb.StartOff >= 0,
		}
		if tb.Column.Off >= 0 {
			t.Bucket.ColumnPos = pos(tb.Column.Off)
		}
	}
	if z := tp.Size; z != nil {
		t.Size = &Size{Rows: z.Rows, RowBytes: z.RowBytes, Keys: z.Keys, Total: z.Total, Rate: z.Rate, RatePer: z.RatePer,
			LimitRows: z.LimitRows, LimitBytes: z.LimitBytes, Pos: pos(z.Off)}
	}
	if tp.Where != nil {
		t.WherePos = pos(tp.WhereOff)
		for _, tc := range tp.Where {
			c := Cond{Ref: ref(tc.Column), Op: CondOp(tc.Op)}
			for _, v := range tc.Values {
				c.Values = append(c.Values, CondValue{Text: v.Text, Quoted: v.Quoted, Pos: pos(v.Off)})
			}
			t.Where = append(t.Where, c)
		}
	}
	for _, ig := range tp.Ignores {
		t.Ignores = append(t.Ignores, Ignore{Code: ig.Code, Reason: ig.Reason, Pos: pos(ig.Off)})
	}
	t.Options = tableOptions(tp, pos)
	if t.Doc == "" {
		t.Doc = describe(e, t)
	}
	return t
}

// constants counts the package-level constants of a named type t.
func (b *builder) constants(t types.Type) int {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return 0
	}
	n := 0
	for _, c := range b.pkgConsts(named.Obj().Pkg()) {
		if types.Identical(c.Type(), named) {
			n++
		}
	}
	return n
}

// layout orders a table's columns: partition key (bucket last), clustering
// columns, then the stored columns in field order. Unresolved names are
// left out; validation reports them.
func layout(e *Entity, t *Table) []*Column {
	var cols []*Column
	inKey := map[*Field]bool{}
	for _, r := range t.PK {
		if r.Field != nil && !inKey[r.Field] {
			inKey[r.Field] = true
			cols = append(cols, &Column{Name: r.Field.Column, Type: r.Field.Type, Kind: PartitionKey, Field: r.Field})
		}
	}
	if t.Bucket != nil {
		cols = append(cols, &Column{Name: t.Bucket.Column, Type: t.Bucket.Type(), Kind: PartitionKey, Bucket: t.Bucket})
	}
	for _, r := range t.CK {
		if r.Field != nil && !inKey[r.Field] {
			inKey[r.Field] = true
			cols = append(cols, &Column{Name: r.Field.Column, Type: r.Field.Type, Kind: Clustering, Desc: r.Desc, Field: r.Field})
		}
	}
	if t.Unique && t != e.Canonical {
		// A claim: the key, and who holds it (the columns of the source of
		// truth's key the table's key lacks), and since when.
		if c := e.Canonical; c != nil && c != t {
			for _, r := range append(append([]Ref(nil), c.PK...), refsOf(c.CK)...) {
				if r.Field != nil && !inKey[r.Field] {
					inKey[r.Field] = true
					cols = append(cols, &Column{Name: r.Field.Column, Type: r.Field.Type, Kind: Regular, Field: r.Field})
				}
			}
		}
		return append(cols, protocolColumn(cqlspec.ClaimCol))
	}
	static := map[*Field]bool{}
	for _, r := range t.Static {
		if r.Field != nil {
			static[r.Field] = true
		}
	}
	stored := map[*Field]bool{}
	if t.Cols != nil {
		for _, r := range t.Cols {
			if r.Field != nil {
				stored[r.Field] = true
			}
		}
	}
	for _, f := range e.Fields {
		if inKey[f] || (t.Cols != nil && !stored[f] && !static[f]) {
			continue
		}
		kind := Regular
		if static[f] {
			kind = Static
		}
		cols = append(cols, &Column{Name: f.Column, Type: f.Type, Kind: kind, Field: f})
	}
	if e.Versioned() && t == e.Canonical {
		static := slices.ContainsFunc(cols, func(c *Column) bool { return c.Kind == Static })
		for _, c := range cqlspec.ProtocolCols(static) {
			cols = append(cols, protocolColumn(c))
		}
	}
	return cols
}

// protocolKinds are the model's kinds of the columns cqlspec adds.
var protocolKinds = map[cqlspec.Kind]ColumnKind{
	cqlspec.KindVersion:       Version,
	cqlspec.KindDeleted:       Deleted,
	cqlspec.KindPending:       Pending,
	cqlspec.KindWrites:        Writes,
	cqlspec.KindStaticVersion: StaticVersion,
	cqlspec.KindClaim:         Claim,
}

// protocolColumn is a column of the write protocol or of a claim, as
// cqlspec describes it.
func protocolColumn(c cqlspec.Col) *Column {
	return &Column{Name: c.Name, Type: &Type{Name: c.Type}, Kind: protocolKinds[c.Kind]}
}

// describe words an access pattern when the tag gives no doc.
func describe(e *Entity, t *Table) string {
	s := e.GoName + " rows by "
	if len(t.PK) == 0 && t.Bucket != nil {
		s += t.Bucket.Expr()
	}
	pk := make([]string, len(t.PK))
	for i, r := range t.PK {
		pk[i] = r.Name
	}
	s += strings.Join(pk, " and ")
	if len(t.CK) > 0 {
		ck := make([]string, len(t.CK))
		for i, r := range t.CK {
			ck[i] = r.Name + " ascending"
			if r.Desc {
				ck[i] = r.Name + " descending"
			}
		}
		s += ", ordered by " + strings.Join(ck, ", then ")
	}
	return s
}

// SnakeCase derives a column name from a Go field name the way gocqlx's
// default mapper does (reflectx.CamelToSnakeASCII): an underscore goes
// before an upper-case letter that follows a lower-case one or starts a
// new word, so UserID is user_id and HTTPServer is http_server. It reports
// false for names that are not ASCII letters, digits and underscores.
func SnakeCase(name string) (string, bool) {
	out := make([]byte, 0, len(name)+4)
	for i := 0; i < len(name); i++ {
		c := name[i]
		isUpper := c >= 'A' && c <= 'Z'
		isLower := func(j int) bool { return j < len(name) && name[j] >= 'a' && name[j] <= 'z' }
		if !isUpper && !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '_' {
			return "", false
		}
		if isUpper {
			if i > 0 && name[i-1] != '_' && (isLower(i-1) || isLower(i+1)) {
				out = append(out, '_')
			}
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out), true
}

// initialisms are written in capitals in Go names derived from CQL ones.
var initialisms = map[string]string{"id": "ID", "ids": "IDs", "ttl": "TTL", "uuid": "UUID", "ip": "IP", "url": "URL", "api": "API", "json": "JSON", "http": "HTTP"}

// GoName derives an exported Go name from a snake_case CQL name:
// top_tracks_by_artist becomes TopTracksByArtist, user_id UserID.
func GoName(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		if up, ok := initialisms[strings.ToLower(part)]; ok {
			b.WriteString(up)
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	if b.Len() == 0 || !unicode.IsLetter([]rune(b.String())[0]) {
		return "P" + b.String()
	}
	return b.String()
}

func refsOf(ks []KeyRef) []Ref {
	rs := make([]Ref, len(ks))
	for i, k := range ks {
		rs[i] = k.Ref
	}
	return rs
}
