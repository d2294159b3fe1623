// Package robust checks recorded histories of repository calls for
// linearizability with porcupine (github.com/anishathalye/porcupine), as
// etcd's robustness suite checks etcd: a few clients run a seeded mix of
// Get, Insert, Update, Modify, IfVersion and Delete on a few entities at
// once, under faults the test injects, and every call is recorded with
// the times it was made and returned. The history must then be
// explainable by one order of the calls, each taking effect at one
// instant between its call and its return, in which each call does what
// docs/repositories.md says it does.
//
// The model is one entity per partition (porcupine checks each key
// alone): absent, or live with its values. A call whose outcome is
// unknown (an error that may have applied) is a maybe-operation: its
// return is put after every other call's, so the checker may place it
// anywhere after its call, including after the last read, where it
// changes nothing anyone saw.
package robust

import (
	"errors"
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Kind is the kind of a recorded call.
type Kind uint8

const (
	Get       Kind = iota + 1 // Get (GetVersioned when an IfVersion follows it), or a serial read at the end
	Insert                    // Insert: create, or overwrite the values of a live entity
	Update                    // Update: overwrite a live entity; ErrNotFound on an absent one
	Modify                    // Modify with a change that adds 1 to Count
	IfVersion                 // Update with IfVersion(v), v read by the Get before it
	Delete                    // Delete: absent afterwards, nil on an absent entity too
)

func (k Kind) String() string {
	switch k {
	case Get:
		return "Get"
	case Insert:
		return "Insert"
	case Update:
		return "Update"
	case Modify:
		return "Modify"
	case IfVersion:
		return "IfVersion"
	case Delete:
		return "Delete"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Value is what the model keeps of an entity: a name (unique to each
// write that sets it, so that equal values mean the same version), a
// counter that Modify increments, and a group (a column of a projection's
// key, so that writes move rows between partitions of another table).
type Value struct {
	Name  string
	Count int64
	Group int
}

func (v Value) String() string { return fmt.Sprintf("%s/%d/g%d", v.Name, v.Count, v.Group) }

// State is the model's state of one entity.
type State struct {
	Live bool
	V    Value
}

func (s State) String() string {
	if !s.Live {
		return "absent"
	}
	return s.V.String()
}

// Input is a call: its entity (Key), kind, the values it writes
// (Insert, Update, IfVersion) and, for IfVersion, the values and version
// the Get before it read.
type Input struct {
	Key     int
	Kind    Kind
	V       Value
	Expect  Value // IfVersion: the values read with Version
	Version int64 // IfVersion: the version expected
	Serial  bool  // Get: a read at the serial level
	Resent  bool  // a write sent again with its idempotency key
}

// Result is how a call ended.
type Result uint8

const (
	OK         Result = iota + 1 // nil error
	NotFound                     // errors.Is(err, cqlgen.ErrNotFound): nothing written
	Conflict                     // a *cqlgen.VersionConflictError on a live entity: nothing written
	NotApplied                   // a *cqlgen.NotAppliedError (lost every race): nothing written
	Unknown                      // any other error: it may have applied (a maybe-operation)
	Applied                      // errors.Is(err, cqlgen.ErrDeletedSince): a resent Modify's change applied, the entity is gone since
)

func (r Result) String() string {
	switch r {
	case OK:
		return "ok"
	case NotFound:
		return "not found"
	case Conflict:
		return "conflict"
	case NotApplied:
		return "not applied"
	case Unknown:
		return "unknown"
	case Applied:
		return "applied, deleted since"
	}
	return fmt.Sprintf("Result(%d)", uint8(r))
}

// Classify maps a call's error to its Result, as docs/repositories.md
// defines them: an error that says the outcome is unknown, and any error
// it does not say wrote nothing (a fan-out that failed after the
// conditional write applied, a deadline, a cut), is Unknown.
func Classify(err error) Result {
	var vc *cqlgen.VersionConflictError
	var na *cqlgen.NotAppliedError
	switch {
	case err == nil:
		return OK
	case errors.Is(err, cqlgen.ErrOutcomeUnknown):
		return Unknown
	case errors.Is(err, cqlgen.ErrDeletedSince):
		return Applied
	case errors.Is(err, cqlgen.ErrNotFound):
		return NotFound
	case errors.As(err, &vc):
		return Conflict
	case errors.As(err, &na):
		return NotApplied
	}
	return Unknown
}

// Output is how a call ended: for a Get, whether it found the entity
// and its values and version; for a Modify that succeeded, the entity it
// returned.
type Output struct {
	R       Result
	Found   bool
	V       Value
	Version int64
	Err     string // the error, for the visualization
}

// step is the model: whether the call could have ended as out on an
// entity in state s, and the state after it.
func step(s State, in Input, out Output) (bool, State) {
	applyIf := func(cond bool, next State) (bool, State) {
		if cond {
			return true, next
		}
		return true, s
	}
	live := State{Live: true, V: in.V}
	switch in.Kind {
	case Get:
		if out.R != OK {
			return false, s
		}
		if out.Found {
			return s.Live && s.V == out.V, s
		}
		return !s.Live, s
	case Insert:
		switch out.R {
		case OK, Unknown:
			return true, live
		case NotApplied:
			return true, s
		}
	case Update:
		switch out.R {
		case OK:
			return s.Live, live
		case NotFound:
			return !s.Live, s
		case Unknown:
			return applyIf(s.Live, live)
		case NotApplied:
			return true, s
		}
	case Modify:
		inc := State{Live: true, V: s.V}
		inc.V.Count++
		switch out.R {
		case OK:
			// A resend that finds its change applied returns the
			// entity as it is now, which later changes may have moved.
			return s.Live && (in.Resent || out.V == inc.V), inc
		case Applied:
			// Its change applied, and a later Delete removed the entity
			// before the resend returned.
			return s.Live && in.Resent, inc
		case NotFound:
			return !s.Live, s
		case Unknown:
			return applyIf(s.Live, inc)
		case NotApplied:
			return true, s
		}
	case IfVersion:
		at := s.Live && s.V == in.Expect
		switch out.R {
		case OK:
			return at, live
		case NotFound:
			return !s.Live, s
		case Conflict:
			return s.Live && !at, s
		case Unknown:
			return applyIf(at, live)
		case NotApplied:
			return true, s
		}
	case Delete:
		switch out.R {
		case OK, Unknown:
			return true, State{}
		case NotFound:
			return !s.Live, s
		case NotApplied:
			return true, s
		}
	}
	return false, s
}

// Model is the porcupine model of one entity per key: histories are
// partitioned by Input.Key, and each partition starts absent.
var Model = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[int][]porcupine.Operation{}
		var keys []int
		for _, op := range history {
			k := op.Input.(Input).Key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		parts := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, byKey[k])
		}
		return parts
	},
	Init: func() any { return State{} },
	Step: func(state, input, output any) (bool, any) {
		return step(state.(State), input.(Input), output.(Output))
	},
	Equal: func(a, b any) bool { return a.(State) == b.(State) },
	DescribeOperation: func(input, output any) string {
		in, out := input.(Input), output.(Output)
		return describe(in, out)
	},
	DescribeState: func(state any) string { return state.(State).String() },
}

func describe(in Input, out Output) string {
	var s string
	switch in.Kind {
	case Get:
		s = fmt.Sprintf("Get(k%d)", in.Key)
		if in.Serial {
			s = fmt.Sprintf("SerialGet(k%d)", in.Key)
		}
		if out.R == OK {
			if out.Found {
				return fmt.Sprintf("%s → %v @%d", s, out.V, out.Version)
			}
			return s + " → absent"
		}
	case Insert, Update:
		s = fmt.Sprintf("%v(k%d, %v)", in.Kind, in.Key, in.V)
	case IfVersion:
		s = fmt.Sprintf("IfVersion(k%d, %v, expect %v @%d)", in.Key, in.V, in.Expect, in.Version)
	case Modify:
		s = fmt.Sprintf("Modify(k%d, +1)", in.Key)
		if out.R == OK && !in.Resent {
			return fmt.Sprintf("%s → %v", s, out.V)
		}
	case Delete:
		s = fmt.Sprintf("Delete(k%d)", in.Key)
	}
	if in.Resent {
		s += " (resent with its key)"
	}
	if out.R == Unknown || out.R == NotApplied || in.Resent {
		return fmt.Sprintf("%s → %v (%s)", s, out.R, out.Err)
	}
	return fmt.Sprintf("%s → %v", s, out.R)
}
