package schemadiff

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Options are the table options a comparison reads: those cqlgen writes
// besides the TTL. A schema that does not state one has Cassandra's
// default.
type Options struct {
	Comment string
	GCGrace int64
	// Compaction is the strategy's class, without its package, and the
	// options cqlgen sets (a time window's unit and size), sorted.
	Compaction Compaction
	// Transactional is transactional_mode (Cassandra 6, Accord): "" for
	// off, else the mode ("full").
	Transactional string
	// MigratingFrom, read from a live table only, is its
	// transactional_migration_from: "" or "none" when no migration of its
	// ranges into (or out of) Accord is under way, else the mode it
	// migrates from ("off": ALTER TABLE ... WITH transactional_mode ran
	// over a table, and the ranges are not all migrated yet).
	MigratingFrom string
}

// Migrating reports whether the live table's ranges are still migrating
// into or out of Accord.
func (o Options) Migrating() bool { return o.MigratingFrom != "" && o.MigratingFrom != "none" }

// Compaction is a table's compaction strategy.
type Compaction struct {
	Class   string
	Options map[string]string // compaction_window_unit, compaction_window_size
}

// DefaultGCGrace is Cassandra's default gc_grace_seconds: ten days.
const DefaultGCGrace = 864000

// DefaultOptions are the options of a table that states none.
func DefaultOptions() Options {
	return Options{GCGrace: DefaultGCGrace, Compaction: Compaction{Class: "SizeTieredCompactionStrategy"}}
}

// compared are the compaction options a comparison looks at; Cassandra
// reports many more (thresholds), which cqlgen never sets.
var compared = []string{"compaction_window_unit", "compaction_window_size"}

// NewCompaction normalizes a compaction map as Cassandra or a schema file
// states it: the class without its package, and the options compared,
// with TWCS's defaults made explicit.
func NewCompaction(m map[string]string) Compaction {
	class := m["class"]
	class = class[strings.LastIndexByte(class, '.')+1:]
	c := Compaction{Class: class}
	if class == "TimeWindowCompactionStrategy" {
		c.Options = map[string]string{"compaction_window_unit": "DAYS", "compaction_window_size": "1"}
		for _, k := range compared {
			if v, ok := m[k]; ok {
				c.Options[k] = strings.ToUpper(v)
			}
		}
	}
	return c
}

// String writes the compaction as CQL's map literal.
func (c Compaction) String() string {
	parts := []string{"'class': '" + c.Class + "'"}
	keys := make([]string, 0, len(c.Options))
	for k := range c.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := c.Options[k]
		if _, err := strconv.Atoi(v); err != nil {
			v = "'" + v + "'"
		}
		parts = append(parts, "'"+k+"': "+v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (c Compaction) equal(d Compaction) bool {
	if c.Class != d.Class || len(c.Options) != len(d.Options) {
		return false
	}
	for k, v := range c.Options {
		if d.Options[k] != v {
			return false
		}
	}
	return true
}

// option reads one of comment = '...', gc_grace_seconds = N,
// compaction = {...} and transactional_mode = '...'.
func (p *parser) option(o *Options) error {
	key := strings.ToLower(p.next())
	if err := p.expect("="); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	switch key {
	case "comment":
		o.Comment = unquote(p.next())
	case "gc_grace_seconds":
		n, err := strconv.ParseInt(p.next(), 10, 64)
		if err != nil {
			return fmt.Errorf("gc_grace_seconds: %w", err)
		}
		o.GCGrace = n
	case "transactional_mode":
		o.Transactional = transactionalMode(unquote(p.next()))
	case "compaction":
		if err := p.expect("{"); err != nil {
			return fmt.Errorf("compaction: %w", err)
		}
		m := map[string]string{}
		for !p.is("}") && p.peek() != "" {
			k := unquote(p.next())
			if err := p.expect(":"); err != nil {
				return fmt.Errorf("compaction: %w", err)
			}
			m[k] = unquote(p.next())
			if p.is(",") {
				p.next()
			}
		}
		p.next()
		o.Compaction = NewCompaction(m)
	}
	return nil
}

// transactionalMode is a transactional_mode as Options holds it: "" for
// off.
func transactionalMode(m string) string {
	if m = strings.ToLower(m); m == "off" {
		return ""
	}
	return m
}

// unquote reads a CQL string literal, or returns a bare token as it is.
func unquote(tok string) string {
	if len(tok) >= 2 && tok[0] == '\'' && tok[len(tok)-1] == '\'' {
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'")
	}
	return tok
}

// quote writes a CQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// compareOptions lists the option changes of a table, each applied in
// place by ALTER TABLE ... WITH.
func compareOptions(ot, nt *Table) []Change {
	var out []Change
	alter := func(what, with string) {
		out = append(out, Change{Kind: Additive, Table: nt.Name, What: what, CQL: fmt.Sprintf("ALTER TABLE %s WITH %s;", nt.Name, with)})
	}
	o, n := ot.Options, nt.Options
	if !o.Compaction.equal(n.Compaction) {
		alter(fmt.Sprintf("compaction %s becomes %s (existing SSTables are recompacted over time)", o.Compaction, n.Compaction), "compaction = "+n.Compaction.String())
	}
	if o.GCGrace != n.GCGrace {
		alter(fmt.Sprintf("gc_grace_seconds %d becomes %d", o.GCGrace, n.GCGrace), fmt.Sprintf("gc_grace_seconds = %d", n.GCGrace))
	}
	if o.Transactional != n.Transactional {
		mode := func(m string) string { return quote(cmp.Or(m, "off")) }
		what := fmt.Sprintf("transactional_mode %s becomes %s (Cassandra 6: every write of the table goes through Accord", mode(o.Transactional), mode(n.Transactional))
		if n.Transactional != "" {
			what += "; a table that holds rows must have its ranges migrated to Accord first, docs/cassandra6.md, \"Onboarding a table that holds data\")"
		} else {
			what += " no more)"
		}
		out = append(out, Change{Kind: Additive, Table: nt.Name, What: what, Transactional: n.Transactional != "",
			CQL: fmt.Sprintf("ALTER TABLE %s WITH transactional_mode = %s;", nt.Name, mode(n.Transactional))})
	}
	if o.Comment != n.Comment {
		alter(fmt.Sprintf("comment %s becomes %s", quote(o.Comment), quote(n.Comment)), "comment = "+quote(n.Comment))
	}
	return out
}
