package integration

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/integration/typemodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestDifferential runs one seeded random workload of writes and reads
// through the generated repositories of several models, on the node and
// on cqltest (the in-memory Cassandra the unit tests trust), call by
// call in the same order, and requires every call to come back the same
// on both: the same rows in the same order, the same cursors, errors of
// the same kind. It ends with a sweep that reads every key it wrote and
// walks every pattern of every partition to its end.
//
// The models cover range reads with bounds options, time buckets (walk
// back reads), hash buckets (merged reads), cursors, counters, UDTs,
// statics, unique claims, sparse tables, key-changing updates, indexes,
// every native type. Calls are built by reflection over the generated
// repositories (whose parameter names are read from the generated
// source), with values drawn from small pools of edge values (empty
// strings, zero values, nil and empty collections, unicode, extreme
// times), so that keys collide and reads find what was written.
//
//	CQLGEN_DIFF_SEED   the seed (default 35, so that make test runs one
//	                   known workload; "random" draws one, printed)
//	CQLGEN_DIFF_OPS    the calls, over all models (default 10000)
//	CQLGEN_DIFF_MODEL  only the models whose name contains it
//	CQLGEN_DIFF_LOG=1  log every call
//
// A divergence prints the seed, the call's index, the call, both
// results, and the command that replays the run.
func TestDifferential(t *testing.T) {
	seed := uint64(35)
	if s := os.Getenv("CQLGEN_DIFF_SEED"); s == "random" {
		seed = uint64(time.Now().UnixNano())
	} else if s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CQLGEN_DIFF_SEED=%q: %v", s, err)
		}
		seed = v
	}
	ops := 10000
	if s := os.Getenv("CQLGEN_DIFF_OPS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("CQLGEN_DIFF_OPS=%q: want a positive number", s)
		}
		ops = v
	}
	// A model's workload depends on the seed, the calls and its place in
	// the list alone: CQLGEN_DIFF_MODEL replays it as the whole run did.
	only := os.Getenv("CQLGEN_DIFF_MODEL")
	all := diffModels()
	total, matched := 0, 0
	for _, m := range all {
		total += m.weight
		if strings.Contains(m.name, only) {
			matched++
		}
	}
	if matched == 0 {
		t.Fatalf("CQLGEN_DIFF_MODEL=%q matches no model", only)
	}
	t.Logf("seed %d, %d calls over %d models", seed, ops, len(all))
	replay := fmt.Sprintf("cd integration && CASSANDRA_HOSTS=127.0.0.1:9042 CQLGEN_DIFF_SEED=%d CQLGEN_DIFF_OPS=%d go test -count=1 -run TestDifferential .", seed, ops)
	for i, m := range all {
		if !strings.Contains(m.name, only) {
			continue
		}
		n := ops * m.weight / total
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			d := newDiffRun(t, m, seed, uint64(i), replay+" # CQLGEN_DIFF_MODEL="+m.name+" for this model alone")
			d.run(n)
		})
	}
}

// diffModel is a model the differential run drives.
type diffModel struct {
	name   string
	schema string
	source string // the generated file, for the methods' parameter names
	ctors  []any  // New...Repo(cqlgen.Session, ...cqlgen.Option)
	weight int    // its share of the calls
	// values are the values drawn for a type, in place of random ones.
	values map[reflect.Type][]any
	// skip are methods not called, "Repo.Method", and why.
	skip map[string]string
}

func diffModels() []*diffModel {
	return []*diffModel{
		{
			name: "testmodel", schema: testmodel.Schema, source: "testmodel/cqlgen_gen.go", weight: 3,
			ctors: []any{testmodel.NewOrderRepo, testmodel.NewNoteRepo, testmodel.NewTradeRepo, testmodel.NewDeskTradeRepo,
				testmodel.NewTickRepo, testmodel.NewReadingRepo, testmodel.NewVisitRepo, testmodel.NewLineRepo, testmodel.NewPartRepo},
		},
		{
			name: "typemodel", schema: typemodel.Schema, source: "typemodel/cqlgen_gen.go", weight: 2,
			ctors: []any{typemodel.NewEverythingRepo, typemodel.NewPlaylistRepo, typemodel.NewCustomerRepo, typemodel.NewVisitRepo},
			values: map[reflect.Type][]any{
				reflect.TypeFor[typemodel.Genre](): {typemodel.Genre("rock"), typemodel.Genre("jazz"), typemodel.Genre("")},
			},
		},
		{
			name: "helpdesk", schema: helpdesk.Schema, source: "../example/helpdesk/cqlgen_gen.go", weight: 3,
			ctors: []any{helpdesk.NewAgentRepo, helpdesk.NewAgentLoadRepo, helpdesk.NewCustomerRepo, helpdesk.NewTicketEventRepo,
				helpdesk.NewTicketRepo, helpdesk.NewArticleRepo, helpdesk.NewAuditEventRepo, helpdesk.NewMacroRepo,
				helpdesk.NewReplyRepo, helpdesk.NewAgentSessionRepo, helpdesk.NewOrganisationRepo, helpdesk.NewTimeEntryRepo,
				helpdesk.NewCannedReplyRepo},
			values: map[reflect.Type][]any{
				reflect.TypeFor[helpdesk.Status](): {helpdesk.StatusOpen, helpdesk.StatusPending, helpdesk.StatusClosed},
			},
			skip: map[string]string{
				"CannedReplyRepo.SimilarReplies": "an ANN query, which cqltest does not model",
			},
		},
		{
			name: "music", schema: music.Schema, source: "../example/music/cqlgen_gen.go", weight: 2,
			ctors: []any{music.NewPlayRepo, music.NewTrackRepo, music.NewPlaylistTrackRepo, music.NewChartEntryRepo, music.NewReleaseRepo},
		},
		{
			name: "messaging", schema: messaging.Schema, source: "../example/messaging/cqlgen_gen.go", weight: 1,
			ctors: []any{messaging.NewMessageRepo},
		},
	}
}

// diffBackend is one side of the run: the node or cqltest.
type diffBackend struct {
	name  string
	repos []reflect.Value
}

// diffRepo is what the generator knows of one repository.
type diffRepo struct {
	name    string
	entity  reflect.Type // the entity (a struct type)
	methods []*diffMethod
	stored  []reflect.Value // entities written (pointers), to draw keys from
}

type diffMethod struct {
	name   string
	kind   string   // "write", "modify", "get", "many", "page", "scan"
	params []string // names of the parameters after ctx, before opts
	typ    reflect.Type
}

// diffOp is one call, the same for both backends.
type diffOp struct {
	repo   int
	method *diffMethod
	args   []reflect.Value // after ctx; a Modify's change is made per backend
	opts   []cqlgen.Option
	desc   string
	walk   bool // follow the cursor to the end
	change *diffChange
}

// diffChange is what a Modify's change function does: it sets the fields
// of mask from template, or refuses.
type diffChange struct {
	template reflect.Value
	mask     []int
	refuse   bool
}

var errDiffRefused = errors.New("diff: the change function refuses")

// diffVerbose (CQLGEN_DIFF_LOG=1) logs every call, to trace a divergence.
var diffVerbose = os.Getenv("CQLGEN_DIFF_LOG") == "1"

type diffRun struct {
	t      *testing.T
	m      *diffModel
	seed   uint64
	replay string
	r      *rand.Rand
	start  time.Time
	now    time.Time // the clock both backends read during a call
	mu     sync.Mutex
	repos  []*diffRepo
	sides  [2]*diffBackend
	times  []time.Time
	uuids  []gocql.UUID
	n      int // calls made
	reads  int // reads compared
	errs   map[string]int
}

func newDiffRun(t *testing.T, m *diffModel, seed, stream uint64, replay string) *diffRun {
	d := &diffRun{t: t, m: m, seed: seed, replay: replay, r: rand.New(rand.NewPCG(seed, stream)), errs: map[string]int{}}
	// Times are relative to the run's start, so that walk-back reads from
	// now find the buckets written; the clock is the real time, read once
	// per call and the same on both sides, so that the node's Paxos
	// ballots (its own clock) come after the timestamps of the call.
	d.start = time.Now().UTC().Truncate(time.Millisecond)
	d.now = d.start
	clock := func() time.Time {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.now
	}
	for _, off := range []time.Duration{0, -time.Millisecond, -time.Hour, -25 * time.Hour, -3 * 24 * time.Hour, -9 * 24 * time.Hour, -40 * 24 * time.Hour, 2 * time.Hour} {
		d.times = append(d.times, d.start.Add(off))
	}
	d.times = append(d.times, time.Unix(0, 0).UTC(), time.Unix(-1, 0).UTC(), time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 12, 31, 23, 59, 59, 999e6, time.UTC))
	for i := range 6 {
		u := gocql.UUIDFromTime(d.start.Add(-time.Duration(i) * time.Minute))
		for j := 8; j < 16; j++ {
			u[j] = byte(i * 7)
		}
		u[8] |= 0x80
		d.uuids = append(d.uuids, u)
	}

	raw, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, m.schema)
	node := gocqlv1.NewSession(raw, nil)
	// cqltest's clock is its server's: a Paxos ballot a little after the
	// call's timestamps, as on the node.
	mem, err := cqltest.New(m.schema, cqltest.WithClock(func() time.Time { return clock().Add(time.Millisecond) }))
	if err != nil {
		t.Fatalf("cqltest refuses the schema of %s: %v", m.name, err)
	}
	params := diffParams(t, m.source)
	d.sides = [2]*diffBackend{{name: "node"}, {name: "cqltest"}}
	for _, ctor := range m.ctors {
		f := reflect.ValueOf(ctor)
		for i, s := range []cqlgen.Session{node, mem} {
			repo := f.Call([]reflect.Value{reflect.ValueOf(s), reflect.ValueOf(cqlgen.WithClock(clock))})[0]
			d.sides[i].repos = append(d.sides[i].repos, repo)
		}
		d.repos = append(d.repos, d.describeRepo(f.Type().Out(0), params))
	}
	return d
}

// diffParams reads the parameter names of the generated repositories'
// methods, "Repo.Method" to names (without ctx and opts).
func diffParams(t *testing.T, path string) map[string][]string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatalf("reading the generated source: %v", err)
	}
	out := map[string][]string{}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !fn.Name.IsExported() {
			continue
		}
		star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		recv := star.X.(*ast.Ident).Name
		var names []string
		for _, p := range fn.Type.Params.List {
			if _, variadic := p.Type.(*ast.Ellipsis); variadic {
				continue
			}
			for _, n := range p.Names {
				names = append(names, n.Name)
			}
		}
		if len(names) > 0 && names[0] == "ctx" {
			names = names[1:]
		}
		out[recv+"."+fn.Name.Name] = names
	}
	return out
}

func (d *diffRun) describeRepo(typ reflect.Type, params map[string][]string) *diffRepo {
	name := typ.Elem().Name()
	r := &diffRepo{name: name}
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		names, ok := params[name+"."+m.Name]
		if !ok || d.m.skip[name+"."+m.Name] != "" {
			continue
		}
		mt := m.Type // with the receiver
		dm := &diffMethod{name: m.Name, params: names, typ: mt}
		last := mt.In(mt.NumIn() - 1)
		switch {
		case m.Name == "Insert" || m.Name == "InsertIfAbsent" || m.Name == "Update" || m.Name == "Delete" || m.Name == "Add":
			dm.kind = "write"
			r.entity = mt.In(2).Elem()
		case m.Name == "Modify":
			dm.kind = "modify"
			names = names[:len(names)-1] // change
			dm.params = names
		case m.Name == "Get" || m.Name == "GetVersioned":
			dm.kind = "get"
		case m.Name == "GetMany":
			dm.kind = "many"
		case last == reflect.TypeFor[*cqlgen.ScanOptions]():
			dm.kind = "scan"
		case last.Kind() == reflect.Pointer && strings.HasSuffix(last.Elem().Name(), "Options") && mt.NumOut() == 2 &&
			mt.Out(0).Kind() == reflect.Struct && strings.HasPrefix(mt.Out(0).Name(), "Page["):
			dm.kind = "page"
		default:
			continue // Entity, Tables, Verify, Repair, Backfill
		}
		if len(names) != mt.NumIn()-2-boolInt(mt.IsVariadic())-boolInt(dm.kind == "modify") {
			d.t.Fatalf("%s.%s: %d parameter names for %v", name, m.Name, len(names), mt)
		}
		r.methods = append(r.methods, dm)
	}
	if r.entity == nil {
		d.t.Fatalf("%s: no write method gives its entity", name)
	}
	return r
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// run makes n calls, then sweeps every key and pattern.
func (d *diffRun) run(n int) {
	for i := 0; i < n; i++ {
		op := d.nextOp()
		if !d.apply(i, op) {
			return
		}
	}
	d.sweep(n)
	d.t.Logf("%s: %d calls, %d reads compared; errors both sides agreed on: %v", d.m.name, d.n, d.reads, d.errs)
}

// nextOp draws a call.
func (d *diffRun) nextOp() *diffOp {
	ri := d.r.IntN(len(d.repos))
	repo := d.repos[ri]
	var writes, reads []*diffMethod
	for _, m := range repo.methods {
		if m.kind == "write" || m.kind == "modify" {
			writes = append(writes, m)
		} else {
			reads = append(reads, m)
		}
	}
	var m *diffMethod
	if len(reads) == 0 || d.r.IntN(2) == 0 {
		m = writes[d.r.IntN(len(writes))]
	} else {
		m = reads[d.r.IntN(len(reads))]
	}
	op := &diffOp{repo: ri, method: m}
	src := d.storedOf(repo)
	switch m.kind {
	case "write":
		var e reflect.Value
		if src.IsValid() && (m.name != "Insert" && m.name != "InsertIfAbsent" && m.name != "Add" || d.r.IntN(2) == 0) {
			e = d.copyValue(src)
			if m.name != "Delete" && m.name != "Add" {
				d.changeFields(e.Elem(), 3)
			}
		} else {
			e = d.value(reflect.PointerTo(repo.entity), 0)
			if e.IsNil() {
				e = reflect.New(repo.entity)
				e.Elem().Set(d.value(repo.entity, 0))
			}
		}
		if m.name == "Add" && d.r.IntN(2) == 0 {
			d.changeFields(e.Elem(), 2)
		}
		op.args = []reflect.Value{e}
		switch x := d.r.IntN(20); {
		case x == 0 && (m.name == "Insert"):
			op.opts, op.desc = []cqlgen.Option{cqlgen.IfAbsent()}, " IfAbsent()"
		case x == 1 && m.name != "Add" && m.name != "InsertIfAbsent":
			v := int64(1 + d.r.IntN(4))
			op.opts, op.desc = []cqlgen.Option{cqlgen.IfVersion(v)}, fmt.Sprintf(" IfVersion(%d)", v)
		}
		if m.name == "Insert" || m.name == "Update" || m.name == "InsertIfAbsent" || m.name == "Add" {
			d.remember(repo, e)
		}
	case "modify":
		op.args = d.keyArgs(m, src, len(m.params))
		tmpl := reflect.New(repo.entity)
		tmpl.Elem().Set(d.value(repo.entity, 0))
		ch := &diffChange{template: tmpl, refuse: d.r.IntN(20) == 0}
		for i := range repo.entity.NumField() {
			if repo.entity.Field(i).IsExported() && d.r.IntN(3) == 0 {
				ch.mask = append(ch.mask, i)
			}
		}
		op.change = ch
		if d.r.IntN(20) == 0 {
			v := int64(1 + d.r.IntN(4))
			op.opts, op.desc = []cqlgen.Option{cqlgen.IfVersion(v)}, fmt.Sprintf(" IfVersion(%d)", v)
		}
	case "get":
		op.args = d.keyArgs(m, src, len(m.params))
	case "many":
		n := len(m.params) - 1
		op.args = d.keyArgs(m, src, n)
		st := m.typ.In(2 + n)
		keys := reflect.MakeSlice(st, 0, 4)
		for range d.r.IntN(5) {
			s := d.storedOf(repo)
			keys = reflect.Append(keys, d.fieldFor(m.params[n], st.Elem(), s, true))
		}
		op.args = append(op.args, keys)
	case "page", "scan":
		n := len(m.params) - 1
		op.args = d.keyArgs(m, src, n)
		ot := m.typ.In(2 + n).Elem()
		o := reflect.New(ot)
		d.fillOptions(o.Elem(), src)
		op.args = append(op.args, o)
		op.walk = d.r.IntN(2) == 0
	}
	return op
}

// storedOf draws an entity written before (invalid if none).
func (d *diffRun) storedOf(repo *diffRepo) reflect.Value {
	if len(repo.stored) == 0 || d.r.IntN(10) == 0 {
		return reflect.Value{}
	}
	return repo.stored[d.r.IntN(len(repo.stored))]
}

func (d *diffRun) remember(repo *diffRepo, e reflect.Value) {
	c := d.copyValue(e)
	if len(repo.stored) < 48 {
		repo.stored = append(repo.stored, c)
		return
	}
	repo.stored[d.r.IntN(len(repo.stored))] = c
}

// keyArgs draws the first n parameters of m, each the field of the same
// name of src (mostly) or a value of its type.
func (d *diffRun) keyArgs(m *diffMethod, src reflect.Value, n int) []reflect.Value {
	args := make([]reflect.Value, n)
	for i := range n {
		args[i] = d.fieldFor(m.params[i], m.typ.In(2+i), src, d.r.IntN(8) != 0)
	}
	return args
}

// fieldFor is src's field named like name (userID: UserID; agentIDs:
// AgentID; totalFrom: Total) when there is one of type t and fromSrc,
// else a value of t.
func (d *diffRun) fieldFor(name string, t reflect.Type, src reflect.Value, fromSrc bool) reflect.Value {
	if fromSrc && src.IsValid() {
		e := src.Elem()
		for _, cand := range []string{name, strings.TrimSuffix(name, "s"), strings.TrimSuffix(name, "From"), strings.TrimSuffix(name, "To"), strings.TrimSuffix(name, "Eq")} {
			for i := range e.NumField() {
				f := e.Type().Field(i)
				if f.IsExported() && strings.EqualFold(f.Name, cand) && f.Type == t {
					return d.copyValue(e.Field(i))
				}
			}
		}
	}
	return d.value(t, 0)
}

// fillOptions draws a read's options: a page size, bounds (often a
// written entity's value), a bucket to walk back from, split scans.
func (d *diffRun) fillOptions(o reflect.Value, src reflect.Value) {
	t := o.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		v := o.Field(i)
		switch {
		case f.Name == "Limit":
			v.SetInt(int64([]int{0, 1, 2, 3, 5, 10, 100}[d.r.IntN(7)]))
		case f.Name == "Cursor":
		case f.Name == "LookBack":
			v.SetInt(int64([]int{0, 1, 2, 3, 8, 50}[d.r.IntN(6)]))
		case f.Name == "Of":
			v.SetInt(int64([]int{0, 1, 2, 4}[d.r.IntN(4)]))
		case f.Name == "Split":
		case f.Type.Kind() == reflect.Bool:
			v.SetBool(d.r.IntN(4) == 0)
		case f.Type.Kind() == reflect.Pointer:
			if d.r.IntN(2) == 0 {
				continue
			}
			p := reflect.New(f.Type.Elem())
			p.Elem().Set(d.fieldFor(f.Name, f.Type.Elem(), src, d.r.IntN(2) == 0))
			v.Set(p)
		case f.Name == "Start":
			if d.r.IntN(2) == 0 {
				v.Set(reflect.ValueOf(d.times[d.r.IntN(len(d.times))]))
			}
		default:
			v.Set(d.value(f.Type, 0))
		}
	}
	if of := o.FieldByName("Of"); of.IsValid() && of.Int() > 0 {
		o.FieldByName("Split").SetInt(int64(d.r.IntN(int(of.Int()))))
	}
}

// changeFields redraws about k of e's fields.
func (d *diffRun) changeFields(e reflect.Value, k int) {
	n := e.NumField()
	for range k {
		i := d.r.IntN(n)
		if e.Type().Field(i).IsExported() {
			e.Field(i).Set(d.value(e.Type().Field(i).Type, 0))
		}
	}
}

var (
	strPool = []string{"", "a", "b", "c", "ab", "é", "日本語", "a b", "zz", "\u00a0", "Z"}
	intPool = []int64{0, 1, 2, 3, -1, 7, 100}
)

// value draws a value of t.
func (d *diffRun) value(t reflect.Type, depth int) reflect.Value {
	if vs, ok := d.m.values[t]; ok {
		return reflect.ValueOf(vs[d.r.IntN(len(vs))])
	}
	v := reflect.New(t).Elem()
	switch t {
	case reflect.TypeFor[time.Time]():
		return reflect.ValueOf(d.times[d.r.IntN(len(d.times))])
	case reflect.TypeFor[gocql.UUID]():
		return reflect.ValueOf(d.uuids[d.r.IntN(len(d.uuids))])
	case reflect.TypeFor[time.Duration]():
		return reflect.ValueOf([]time.Duration{0, time.Second, 90 * time.Minute, 1500 * time.Millisecond, 24*time.Hour - time.Nanosecond}[d.r.IntN(5)])
	case reflect.TypeFor[*big.Int]():
		if d.r.IntN(3) == 0 {
			return v
		}
		b, _ := new(big.Int).SetString([]string{"0", "-1", "1180591620717411303424", "-9223372036854775809"}[d.r.IntN(4)], 10)
		return reflect.ValueOf(b)
	case reflect.TypeFor[*inf.Dec]():
		if d.r.IntN(3) == 0 {
			return v
		}
		return reflect.ValueOf(inf.NewDec([]int64{0, 150, -3, math.MaxInt64}[d.r.IntN(4)], inf.Scale(d.r.IntN(4))))
	case reflect.TypeFor[net.IP]():
		return reflect.ValueOf([]net.IP{nil, net.IPv4(127, 0, 0, 1).To4(), net.ParseIP("::1"), net.ParseIP("2001:db8::1")}[d.r.IntN(4)])
	}
	if depth > 4 {
		return v
	}
	switch t.Kind() {
	case reflect.String:
		// The empty string is a key no read may name (ErrEmptyKey): rarer.
		if d.r.IntN(16) == 0 {
			break
		}
		v.SetString(strPool[1+d.r.IntN(len(strPool)-1)])
	case reflect.Bool:
		v.SetBool(d.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if d.r.IntN(10) == 0 {
			bits := t.Bits()
			if d.r.IntN(2) == 0 {
				v.SetInt(-1 << (bits - 1))
			} else {
				v.SetInt(1<<(bits-1) - 1)
			}
		} else {
			v.SetInt(intPool[d.r.IntN(len(intPool))])
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if d.r.IntN(10) == 0 {
			v.SetUint(math.MaxUint64 >> (64 - t.Bits()))
		} else {
			v.SetUint(uint64(d.r.IntN(4)))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2.25, 1e30, math.Inf(1)}[d.r.IntN(5)])
	case reflect.Array:
		for i := range t.Len() {
			v.Index(i).Set(d.value(t.Elem(), depth+1))
		}
	case reflect.Slice:
		switch x := d.r.IntN(8); {
		case x < 2: // nil
		case x < 3:
			v.Set(reflect.MakeSlice(t, 0, 0))
		default:
			n := 1 + d.r.IntN(3)
			v.Set(reflect.MakeSlice(t, n, n))
			for i := range n {
				v.Index(i).Set(d.value(t.Elem(), depth+1))
			}
		}
	case reflect.Map:
		switch x := d.r.IntN(8); {
		case x < 2:
		case x < 3:
			v.Set(reflect.MakeMap(t))
		default:
			v.Set(reflect.MakeMap(t))
			for range 1 + d.r.IntN(3) {
				v.SetMapIndex(d.value(t.Key(), depth+1), d.value(t.Elem(), depth+1))
			}
		}
	case reflect.Pointer:
		if d.r.IntN(3) != 0 {
			p := reflect.New(t.Elem())
			p.Elem().Set(d.value(t.Elem(), depth+1))
			v.Set(p)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(d.value(t.Field(i).Type, depth+1))
			}
		}
	}
	return v
}

// copyValue copies v deeply, so that a call that changes its arguments
// (an Insert sets the entity's version) changes only its own side's.
func (d *diffRun) copyValue(v reflect.Value) reflect.Value {
	t := v.Type()
	switch t {
	case reflect.TypeFor[*big.Int]():
		if v.IsNil() {
			return v
		}
		return reflect.ValueOf(new(big.Int).Set(v.Interface().(*big.Int)))
	case reflect.TypeFor[*inf.Dec]():
		if v.IsNil() {
			return v
		}
		return reflect.ValueOf(new(inf.Dec).Set(v.Interface().(*inf.Dec)))
	}
	out := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(t.Elem())
			p.Elem().Set(d.copyValue(v.Elem()))
			out.Set(p)
		}
	case reflect.Slice:
		if !v.IsNil() {
			out.Set(reflect.MakeSlice(t, v.Len(), v.Len()))
			for i := range v.Len() {
				out.Index(i).Set(d.copyValue(v.Index(i)))
			}
		}
	case reflect.Map:
		if !v.IsNil() {
			out.Set(reflect.MakeMap(t))
			it := v.MapRange()
			for it.Next() {
				out.SetMapIndex(d.copyValue(it.Key()), d.copyValue(it.Value()))
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if !t.Field(i).IsExported() && t.Field(i).Name != "_" {
				out.Set(v) // time.Time and the like: values
				return out
			}
		}
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				out.Field(i).Set(d.copyValue(v.Field(i)))
			}
		}
	default:
		out.Set(v)
	}
	return out
}

// diffResult is what one call returned on one side.
type diffResult struct {
	vals   []any
	err    error
	class  string
	cursor string // a scan's own cursor
}

// call makes op on one side; cursor, if any, replaces the options' own.
func (d *diffRun) call(side *diffBackend, op *diffOp, cursor string) diffResult {
	fn := side.repos[op.repo].MethodByName(op.method.name)
	args := []reflect.Value{reflect.ValueOf(context.Background())}
	for _, a := range op.args {
		args = append(args, d.copyValue(a))
	}
	if op.method.kind == "page" || op.method.kind == "scan" {
		if c := args[len(args)-1].Elem().FieldByName("Cursor"); c.IsValid() {
			c.SetString(cursor)
		}
	}
	if op.change != nil {
		ch := op.change
		args = append(args, reflect.MakeFunc(op.method.typ.In(2+len(op.args)), func(in []reflect.Value) []reflect.Value {
			if ch.refuse {
				return []reflect.Value{reflect.ValueOf(&errDiffRefused).Elem()}
			}
			e := in[0]
			for _, i := range ch.mask {
				e.Elem().Field(i).Set(d.copyValue(ch.template.Elem().Field(i)))
			}
			return []reflect.Value{reflect.Zero(reflect.TypeFor[error]())}
		}))
	}
	for _, o := range op.opts {
		args = append(args, reflect.ValueOf(o))
	}
	out := fn.Call(args)
	res := diffResult{}
	for i, o := range out {
		if i == len(out)-1 {
			if !o.IsNil() {
				res.err = o.Interface().(error)
			}
			continue
		}
		res.vals = append(res.vals, o.Interface())
	}
	res.class = diffErrClass(res.err)
	if op.method.kind == "scan" && res.err == nil {
		// A scan's cursor carries the server's paging state, which is
		// the node's own: only whether there is more is compared.
		pv := reflect.New(reflect.TypeOf(res.vals[0])).Elem()
		pv.Set(reflect.ValueOf(res.vals[0]))
		res.cursor = pv.FieldByName("Cursor").String()
		if res.cursor != "" {
			pv.FieldByName("Cursor").SetString("(more)")
		}
		res.vals[0] = pv.Interface()
	}
	if res.err != nil {
		res.vals = nil // what comes with an error is not promised
	}
	return res
}

// diffErrClass names the kinds an error matches, by errors.Is and
// errors.As, as a caller tells them apart.
func diffErrClass(err error) string {
	if err == nil {
		return "ok"
	}
	var kinds []string
	for _, s := range []struct {
		name string
		err  error
	}{
		{"ErrNotFound", cqlgen.ErrNotFound}, {"ErrNotApplied", cqlgen.ErrNotApplied}, {"ErrInvalidCursor", cqlgen.ErrInvalidCursor},
		{"ErrEmptyKey", cqlgen.ErrEmptyKey}, {"ErrBatchTooLarge", cqlgen.ErrBatchTooLarge}, {"ErrKeyChanged", cqlgen.ErrKeyChanged},
		{"ErrNilEntity", cqlgen.ErrNilEntity}, {"ErrInvalidLimit", cqlgen.ErrInvalidLimit}, {"ErrInvalidOption", cqlgen.ErrInvalidOption},
		{"ErrCrossPartition", cqlgen.ErrCrossPartition}, {"ErrCounterNotApplied", cqlgen.ErrCounterNotApplied},
		{"ErrOutcomeUnknown", cqlgen.ErrOutcomeUnknown}, {"ErrRetriesExhausted", cqlgen.ErrRetriesExhausted}, {"refused", errDiffRefused},
	} {
		if errors.Is(err, s.err) {
			kinds = append(kinds, s.name)
		}
	}
	var vc *cqlgen.VersionConflictError
	if errors.As(err, &vc) {
		kinds = append(kinds, "VersionConflictError")
	}
	var uc *cqlgen.UniqueConflictError
	if errors.As(err, &uc) {
		kinds = append(kinds, "UniqueConflictError")
	}
	var ie *cqlgen.InputError
	if errors.As(err, &ie) {
		kinds = append(kinds, "InputError")
	}
	if len(kinds) == 0 {
		// Told apart by how the driver classifies it: refused before
		// sending, or the server's error code (the messages differ).
		var d *cqldriver.DriverError
		if errors.As(err, &d) && d.Kind != cqldriver.ErrorOther {
			if d.Kind == cqldriver.ErrorServer {
				return fmt.Sprintf("other(server %#x)", d.Code)
			}
			return "other(" + d.Kind.String() + ")"
		}
		return "other"
	}
	return strings.Join(kinds, "+")
}

// apply makes op on both sides and compares; false when they diverge.
func (d *diffRun) apply(i int, op *diffOp) bool {
	d.mu.Lock()
	d.now = time.Now().UTC().Truncate(time.Microsecond)
	d.mu.Unlock()
	d.n++
	if diffVerbose {
		d.t.Logf("%s call %d: %s", d.m.name, i, d.describe(op))
	}
	var cursors [2]string
	for page := 0; ; page++ {
		var res [2]diffResult
		for s, side := range d.sides {
			res[s] = d.call(side, op, cursors[s])
		}
		if !d.same(i, op, page, res) {
			return false
		}
		if op.method.kind != "write" && op.method.kind != "modify" {
			d.reads++
		}
		if res[0].err != nil {
			d.errs[res[0].class]++
			if strings.HasPrefix(res[0].class, "other") && d.errs[res[0].class] <= 3 {
				d.t.Logf("%s call %d: both sides fail: node: %v; cqltest: %v", d.m.name, i, res[0].err, res[1].err)
			}
		}
		if !op.walk || res[0].err != nil || page > 200 {
			return true
		}
		for s := range res {
			if c := reflect.ValueOf(res[s].vals[0]).FieldByName("Cursor"); c.IsValid() {
				cursors[s] = c.String()
			}
			if op.method.kind == "scan" {
				cursors[s] = res[s].cursor
			}
		}
		if cursors[0] == "" {
			return true
		}
	}
}

// same compares the two sides' results of op.
func (d *diffRun) same(i int, op *diffOp, page int, res [2]diffResult) bool {
	if res[0].class == res[1].class && reflect.DeepEqual(res[0].vals, res[1].vals) {
		return true
	}
	if c := res[0].class; strings.Contains(c, "ErrRetriesExhausted") || strings.Contains(c, "no response") || strings.Contains(c, "connection") ||
		strings.Contains(c, "0x1000)") || strings.Contains(c, "0x1001)") || strings.Contains(c, "0x1100)") || strings.Contains(c, "0x1200)") {
		// Unavailable, overloaded, a timeout: the node's load, not a
		// divergence; but the two sides may now differ, so the run ends.
		d.t.Errorf("%s: the node failed call %d (seed %d) for want of time or replicas, not a divergence, and the run cannot go on comparing:\n  %s\n  %v\nreplay: %s",
			d.m.name, i, d.seed, d.describe(op), res[0].err, d.replay)
		return false
	}
	what := "call"
	if page > 0 {
		what = fmt.Sprintf("page %d of call", page+1)
	}
	d.t.Errorf("%s: DIVERGENCE at %s %d (seed %d):\n  %s\nnode:\n%s\ncqltest:\n%s\nreplay: %s",
		d.m.name, what, i, d.seed, d.describe(op), d.show(res[0]), d.show(res[1]), d.replay)
	return false
}

func (d *diffRun) describe(op *diffOp) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s(", d.repos[op.repo].name, op.method.name)
	for i, a := range op.args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(diffShow(a.Interface()))
	}
	if op.change != nil {
		if op.change.refuse {
			b.WriteString(", change: refuses")
		} else {
			var fs []string
			for _, i := range op.change.mask {
				fs = append(fs, fmt.Sprintf("%s=%s", op.change.template.Elem().Type().Field(i).Name, diffShow(op.change.template.Elem().Field(i).Interface())))
			}
			fmt.Fprintf(&b, ", change: set %s", strings.Join(fs, " "))
		}
	}
	b.WriteString(")" + op.desc)
	if op.walk {
		b.WriteString(" walked to the end")
	}
	return b.String()
}

func (d *diffRun) show(r diffResult) string {
	if r.err != nil {
		return fmt.Sprintf("  error [%s]: %v", r.class, r.err)
	}
	var b strings.Builder
	for _, v := range r.vals {
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Struct && rv.FieldByName("Rows").IsValid() {
			rows := rv.FieldByName("Rows")
			fmt.Fprintf(&b, "  %d rows", rows.Len())
			if c := rv.FieldByName("Cursor"); c.IsValid() {
				fmt.Fprintf(&b, ", cursor %q", c.String())
			}
			if m := rv.FieldByName("Missing"); m.IsValid() {
				fmt.Fprintf(&b, ", missing %v", m.Interface())
			}
			b.WriteString("\n")
			for j := range rows.Len() {
				fmt.Fprintf(&b, "    %d: %s\n", j, diffShow(rows.Index(j).Interface()))
			}
			continue
		}
		fmt.Fprintf(&b, "  %s\n", diffShow(v))
	}
	return b.String()
}

// diffShow prints a value with pointers followed and times in UTC.
func diffShow(v any) string {
	return diffShowValue(reflect.ValueOf(v))
}

func diffShowValue(v reflect.Value) string {
	if !v.IsValid() {
		return "<nil>"
	}
	switch x := v.Interface().(type) {
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case gocql.UUID:
		return x.String()
	case *big.Int, *inf.Dec, net.IP:
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprint(x)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return "&" + diffShowValue(v.Elem())
	case reflect.Struct:
		var parts []string
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				parts = append(parts, v.Type().Field(i).Name+":"+diffShowValue(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	case reflect.Slice:
		if v.IsNil() {
			return "nil"
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return fmt.Sprintf("0x%x", v.Bytes())
		}
		var parts []string
		for i := range v.Len() {
			parts = append(parts, diffShowValue(v.Index(i)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("%v", v.Interface())
	case reflect.String:
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v.Interface())
}

// sweep reads, on both sides, every entity written and every pattern of
// every partition they name, walked to the end, and scans every table a
// repository scans.
func (d *diffRun) sweep(base int) {
	i := base
	for ri, repo := range d.repos {
		for _, m := range repo.methods {
			switch m.kind {
			case "get":
				for _, src := range repo.stored {
					op := &diffOp{repo: ri, method: m, desc: " (sweep)"}
					for j := range m.params {
						op.args = append(op.args, d.fieldFor(m.params[j], m.typ.In(2+j), src, true))
					}
					if !d.apply(i, op) {
						return
					}
					i++
				}
			case "page", "scan":
				seen := map[string]bool{}
				for _, src := range append([]reflect.Value{{}}, repo.stored...) {
					n := len(m.params) - 1
					op := &diffOp{repo: ri, method: m, desc: " (sweep)", walk: true}
					if n > 0 && !src.IsValid() {
						continue
					}
					for j := range n {
						op.args = append(op.args, d.fieldFor(m.params[j], m.typ.In(2+j), src, true))
					}
					key := d.describe(op)
					if seen[key] {
						continue
					}
					seen[key] = true
					o := reflect.New(m.typ.In(2 + n).Elem())
					if l := o.Elem().FieldByName("Limit"); l.IsValid() {
						l.SetInt(7)
					}
					if lb := o.Elem().FieldByName("LookBack"); lb.IsValid() {
						lb.SetInt(60)
					}
					op.args = append(op.args, o)
					if !d.apply(i, op) {
						return
					}
					i++
				}
			}
		}
	}
}
