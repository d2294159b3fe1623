package desc

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// CheckPrefix checks the options of a read with a prefix key before
// anything is sent. names are the Go names of the clustering columns the
// options speak of, in order (the options are <name>Eq, <name>From and
// <name>To); fixed[i] reports <name>Eq set on column i, bounded[i] a
// bound on it. A read fixes columns from the first without a gap, and
// bounds only the column after the last one it fixes: a bound on a fixed
// column, or on one past the next, would be a range the statements of
// the read cannot ask for. The error is an *cqlgen.InputError (ErrInvalidOption).
func CheckPrefix(names []string, fixed, bounded []bool) error {
	depth := 0
	for depth < len(fixed) && fixed[depth] {
		depth++
	}
	for i := depth; i < len(fixed); i++ {
		if fixed[i] {
			return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: names[i] + "Eq", Reason: "it needs " + names[depth] + "Eq set: a read fixes clustering columns from the first, without a gap"}
		}
	}
	for i, b := range bounded {
		switch {
		case !b || i == depth:
		case i < depth:
			return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: names[i] + "From/" + names[i] + "To", Reason: "it bounds a column " + names[i] + "Eq already fixes; bound " + names[depth] + " instead"}
		case depth == 0:
			return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: names[i] + "From/" + names[i] + "To", Reason: "it needs " + names[i-1] + "Eq (and every Eq before it) set: only the column after the last one fixed can be bounded"}
		default:
			return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: names[i] + "From/" + names[i] + "To", Reason: "with " + names[depth-1] + "Eq the read bounds " + names[depth] + ", not " + names[i] + ": fix the columns before it too"}
		}
	}
	return nil
}
