package cqltest

import (
	"slices"
	"strings"
)

// The rules on the key of a statement: what Cassandra accepts in WHERE,
// and in the key of a write.

// requiresFiltering is Cassandra's refusal of a query that would filter.
const requiresFiltering = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"

// keyRestrictions sorts the relations of a WHERE clause into the key of
// st, with Cassandra's rules for each kind of statement; toks are the
// relations on token(...).
func keyRestrictions(st *prepared, rels []relation, toks []tokenRelation) error {
	t := st.table
	tokenEq, err := tokenBounds(st, toks)
	if err != nil {
		return err
	}
	// Restrictions on indexed columns outside the key filter the rows the
	// key selects, as a storage-attached index does; the key's rules
	// apply to the rest.
	if st.kind == selectStmt && len(t.indexed) > 0 {
		var keyRels []relation
		for _, r := range rels {
			if t.indexed[r.col] && !r.col.isKey() && r.tuple == nil {
				if r.op == "in" {
					return unsupportedf("IN on an indexed column")
				}
				st.filters = append(st.filters, condition{col: r.col, op: r.op, val: r.val})
				continue
			}
			keyRels = append(keyRels, r)
		}
		rels = keyRels
	}
	byCol := map[*column][]relation{}
	var order []*column
	for _, r := range rels {
		if byCol[r.col] == nil {
			order = append(order, r.col)
		}
		byCol[r.col] = append(byCol[r.col], r)
	}
	for _, c := range order {
		rs := byCol[c]
		if len(rs) > 1 {
			for _, r := range rs {
				if r.op == "=" {
					return invalidf("%s cannot be restricted by more than one relation if it includes an Equal", c.name)
				}
			}
		}
	}
	if len(toks) > 0 && st.kind != selectStmt {
		return invalidf("The token function cannot be used in WHERE clauses for %s statements", st.kind)
	}
	for _, r := range rels {
		if r.tuple == nil {
			continue
		}
		// Cassandra's rules on a multi-column relation: clustering
		// columns, consecutive, in the primary key's order.
		i := slices.Index(t.ck, r.col)
		if i < 0 {
			return invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", r.col.name)
		}
		for j, c := range r.tuple {
			if i+1+j >= len(t.ck) || t.ck[i+1+j] != c {
				return invalidf("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: (%s)", names(append([]*column{r.col}, r.tuple...)))
			}
		}
	}
	for _, c := range order {
		if !c.isKey() {
			if st.kind == selectStmt {
				return invalidf(requiresFiltering)
			}
			return invalidf("Non PRIMARY KEY columns found in where clause: %s ", c.name)
		}
	}
	if len(toks) > 0 {
		return tokenScan(st, byCol, tokenEq)
	}

	// The partition key: equality on every column.
	var missing []string
	for _, c := range t.pk {
		rs := byCol[c]
		if len(rs) == 0 {
			missing = append(missing, c.name)
			continue
		}
		switch {
		case rs[0].op == "in" && st.kind != selectStmt:
			return unsupportedf("IN in the key of a %s", st.kind)
		case rs[0].op == "in" && c != t.pk[len(t.pk)-1]:
			return unsupportedf("IN on a partition key column but the last one")
		case rs[0].op == "in":
			st.pkIn = true
		case rs[0].op != "=":
			return invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function or allow filtering)")
		}
		st.pkEq = append(st.pkEq, rs[0].val)
	}
	if len(missing) > 0 {
		switch {
		case st.kind != selectStmt:
			return invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
		case len(missing) < len(t.pk):
			return invalidf("Partition key parts: %s must be restricted as other parts are", strings.Join(missing, ", "))
		case len(rels) > 0:
			return invalidf(requiresFiltering)
		}
		// No WHERE clause: a scan of the whole table.
		st.pkEq, st.scan = nil, true
		return nil
	}

	// The clustering columns: equality on a prefix, then (SELECT only)
	// bounds on the next column.
	var slice *column
	var unrestricted *column
	for _, c := range t.ck {
		rs := byCol[c]
		switch {
		case len(rs) == 0:
			if unrestricted == nil {
				unrestricted = c
			}
			continue
		case slice != nil:
			return invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", c.name, slice.name)
		case unrestricted != nil:
			return invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", c.name, unrestricted.name)
		case rs[0].op == "=":
			st.ckEq = append(st.ckEq, rs[0].val)
			continue
		case rs[0].op == "in":
			return unsupportedf("IN on a clustering column")
		}
		if st.kind == updateStmt {
			return invalidf("Slice restrictions are not supported on the clustering columns in UPDATE statements")
		}
		if st.kind == deleteStmt {
			return unsupportedf("range deletions with slice restrictions")
		}
		slice = c
		for _, r := range rs {
			b := &bound{val: r.val, inclusive: r.op == "<=" || r.op == ">=", more: r.more, multi: r.multi}
			if r.op == ">" || r.op == ">=" {
				if st.lower != nil {
					return invalidf("More than one restriction was found for the start bound on %s", c.name)
				}
				st.lower = b
			} else {
				if st.upper != nil {
					return invalidf("More than one restriction was found for the end bound on %s", c.name)
				}
				st.upper = b
			}
		}
	}
	return nil
}

// checkKey applies the rules on the clustering key of UPDATE and DELETE.
func checkKey(st *prepared) error {
	t := st.table
	full := len(st.ckEq) == len(t.ck)
	static := st.staticOnly()
	switch {
	case static && len(st.ckEq) > 0:
		return invalidf("Invalid restrictions on clustering columns since the %s statement modifies only static columns", st.kind)
	case static:
		st.staticRow = true
	case st.kind == updateStmt && !full:
		return invalidf("Some clustering keys are missing: %s", names(t.ck[len(st.ckEq):]))
	case st.kind == deleteStmt && !full && len(st.delCols) > 0:
		return invalidf("Range deletions are not supported for specific columns")
	case st.kind == deleteStmt && !full && st.conditional():
		return invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF conditions")
	}
	return checkWrite(st)
}

// checkWrite applies the rules shared by every write.
func checkWrite(st *prepared) error {
	if st.conditional() && st.ts != nil {
		return invalidf("Cannot provide custom timestamp for conditional updates")
	}
	if st.table.counter {
		switch {
		case st.kind == insertStmt:
			return invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
		case st.conditional():
			return invalidf("Conditional updates are not supported on counter tables")
		case st.ttl != nil:
			return invalidf("Cannot provide custom TTL for counter updates")
		case st.ts != nil && st.kind == updateStmt:
			return invalidf("Cannot provide custom timestamp for counter updates")
		}
	}
	return nil
}

func names(cols []*column) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = c.name
	}
	return strings.Join(s, ", ")
}

// tokenBounds merges the relations on token(...) into the bounds of a
// scan, as Cassandra merges token restrictions: at most one lower and one
// upper bound, or an equality (which tokenScan refuses).
func tokenBounds(st *prepared, toks []tokenRelation) (eq bool, err error) {
	pk := names(st.table.pk)
	for i, tr := range toks {
		switch {
		case i > 0 && eq:
			return false, invalidf("%s cannot be restricted by more than one relation if it includes an Equal", pk)
		case i > 0 && tr.op == "=":
			return false, invalidf("Columns \"%s\" cannot be restricted by both an equality and an inequality relation", pk)
		}
		b := &bound{val: tr.val, args: tr.args, inclusive: tr.op == "<=" || tr.op == ">="}
		switch tr.op {
		case "=":
			eq = true
		case ">", ">=":
			if st.tokLower != nil {
				return false, invalidf("More than one restriction was found for the start bound on %s", pk)
			}
			st.tokLower = b
		default:
			if st.tokUpper != nil {
				return false, invalidf("More than one restriction was found for the end bound on %s", pk)
			}
			st.tokUpper = b
		}
	}
	return eq, nil
}

// tokenScan checks what may come with restrictions on the token in a
// SELECT: here, nothing else, and no equality on the token. Cassandra
// filters a token range on restrictions of the partition key's columns
// when they name one partition (not implemented here) and refuses them
// otherwise; it refuses restrictions on clustering columns in a token
// range without ALLOW FILTERING.
func tokenScan(st *prepared, byCol map[*column][]relation, eq bool) error {
	t := st.table
	restricted, allEq := 0, true
	for _, c := range t.pk {
		if rs := byCol[c]; len(rs) > 0 {
			restricted++
			allEq = allEq && rs[0].op == "="
		}
	}
	switch {
	case restricted == len(t.pk) && allEq:
		return unsupportedf("restrictions on both token(%s) and the partition key's columns", names(t.pk))
	case restricted > 0:
		return invalidf(requiresFiltering)
	}
	for _, c := range t.ck {
		if len(byCol[c]) > 0 {
			return invalidf(requiresFiltering)
		}
	}
	if eq {
		return unsupportedf("token(%s) = ? (an equality on the token)", names(t.pk))
	}
	st.scan = true
	return nil
}
