package model

import (
	"fmt"
	"strconv"
	"strings"
)

// parseReplication checks the replication map of a //cqlgen:keyspace
// directive and renders it canonically: a CQL map literal of quoted
// option names to quoted strings or whole numbers, with a 'class', and
// nothing after it. The directive's text lands in schema.cql, which teams
// run with cqlsh -f, so anything but a map (a second statement, a
// comment) is refused, not copied.
func parseReplication(s string) (string, error) {
	p := &mapParser{s: strings.TrimSpace(s)}
	if !p.accept("{") {
		return "", fmt.Errorf("a replication map starts with {")
	}
	var keys, vals []string
	class := ""
	for !p.accept("}") {
		if len(keys) > 0 && !p.accept(",") {
			return "", fmt.Errorf("expected , or } at %q", p.rest())
		}
		k, ok := p.quoted()
		if !ok || !validOptionName(k) {
			return "", fmt.Errorf("expected a quoted option name (letters, digits, _ . -) at %q", p.rest())
		}
		if !p.accept(":") {
			return "", fmt.Errorf("expected : after '%s'", k)
		}
		var v string
		if q, ok := p.quoted(); ok {
			if !validOptionValue(q) {
				return "", fmt.Errorf("option '%s': value '%s' is not a class name, a number or a word", k, q)
			}
			v = "'" + q + "'"
		} else if n, ok := p.number(); ok {
			v = strconv.Itoa(n)
		} else {
			return "", fmt.Errorf("option '%s': expected a quoted value or a whole number at %q", k, p.rest())
		}
		for _, seen := range keys {
			if seen == k {
				return "", fmt.Errorf("option '%s' is given twice", k)
			}
		}
		if k == "class" {
			class = strings.Trim(v, "'")
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	if rest := p.rest(); rest != "" {
		return "", fmt.Errorf("unexpected %q after the replication map", rest)
	}
	switch class {
	case "":
		return "", fmt.Errorf("the replication map has no 'class'")
	case "SimpleStrategy", "NetworkTopologyStrategy",
		"org.apache.cassandra.locator.SimpleStrategy", "org.apache.cassandra.locator.NetworkTopologyStrategy":
	default:
		return "", fmt.Errorf("replication class '%s' is not SimpleStrategy or NetworkTopologyStrategy", class)
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + keys[i] + "': " + vals[i])
	}
	b.WriteString("}")
	return b.String(), nil
}

type mapParser struct {
	s string
	i int
}

func (p *mapParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *mapParser) rest() string { p.space(); return p.s[p.i:] }

func (p *mapParser) accept(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// quoted reads a single-quoted string; ” inside is refused rather than
// unescaped, since no option name or value needs it.
func (p *mapParser) quoted() (string, bool) {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '\'' {
		return "", false
	}
	end := strings.IndexByte(p.s[p.i+1:], '\'')
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

func (p *mapParser) number() (int, bool) {
	p.space()
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == p.i || j-p.i > 4 {
		return 0, false
	}
	n, err := strconv.Atoi(p.s[p.i:j])
	p.i = j
	return n, err == nil
}

func validOptionName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func validOptionValue(s string) bool { return validOptionName(s) }
