package robust

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Verdict is what Check found.
type Verdict struct {
	Result porcupine.CheckResult // Ok, Illegal, or Unknown (the checker timed out)
	// Keys are the entities whose partition is not linearizable (Illegal),
	// or that the checker could not finish (Unknown).
	Keys []int
	// Visualization is the file porcupine's visualization was saved to,
	// when the history is not Ok.
	Visualization string
	// Versions lists reads that contradict each other's versions: one
	// value read with two versions, or two values with one.
	Versions []string
	Took     time.Duration
}

// OK reports whether the history is linearizable and its versions agree.
func (v Verdict) OK() bool { return v.Result == porcupine.Ok && len(v.Versions) == 0 }

func (v Verdict) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s", v.Result, v.Took.Round(time.Millisecond))
	if len(v.Keys) > 0 {
		fmt.Fprintf(&b, "; entities %v", v.Keys)
	}
	if v.Visualization != "" {
		fmt.Fprintf(&b, "; visualization: %s", v.Visualization)
	}
	for _, s := range v.Versions {
		fmt.Fprintf(&b, "; %s", s)
	}
	return b.String()
}

// Check checks h for linearizability within timeout (a result the
// checker could not reach in time is Unknown, which is no pass). When
// the history is not Ok, the visualization is written to dir as
// linearizability-<name>.html (dir is created if need be), and each
// entity's partition is checked alone to name the ones at fault.
func Check(h *History, timeout time.Duration, dir, name string) Verdict {
	begin := time.Now()
	res, info := porcupine.CheckOperationsVerbose(Model, h.Ops, timeout)
	v := Verdict{Result: res, Versions: versionClashes(h.Ops)}
	if res != porcupine.Ok {
		byKey := map[int][]porcupine.Operation{}
		for _, op := range h.Ops {
			k := op.Input.(Input).Key
			byKey[k] = append(byKey[k], op)
		}
		for k, ops := range byKey {
			if porcupine.CheckOperationsTimeout(Model, ops, timeout) != porcupine.Ok {
				v.Keys = append(v.Keys, k)
			}
		}
		sort.Ints(v.Keys)
		if err := os.MkdirAll(dir, 0o755); err == nil {
			path := filepath.Join(dir, "linearizability-"+name+".html")
			if err := porcupine.VisualizePath(Model, info, path); err == nil {
				v.Visualization, _ = filepath.Abs(path)
			} else {
				v.Visualization = "(not saved: " + err.Error() + ")"
			}
		}
	}
	v.Took = time.Since(begin)
	return v
}

// versionClashes checks the versions reads returned: a version names one
// state of an entity, and a value (unique to its write) one version.
func versionClashes(ops []porcupine.Operation) []string {
	type kv struct {
		key int
		v   Value
	}
	type kver struct {
		key int
		ver int64
	}
	byValue := map[kv]int64{}
	byVersion := map[kver]Value{}
	var out []string
	for _, op := range ops {
		in, o := op.Input.(Input), op.Output.(Output)
		if in.Kind != Get || !o.Found || o.Version == 0 {
			continue
		}
		if ver, ok := byValue[kv{in.Key, o.V}]; ok && ver != o.Version {
			out = append(out, fmt.Sprintf("entity %d: %v read at versions %d and %d", in.Key, o.V, ver, o.Version))
		}
		if val, ok := byVersion[kver{in.Key, o.Version}]; ok && val != o.V {
			out = append(out, fmt.Sprintf("entity %d: version %d read with %v and %v", in.Key, o.Version, val, o.V))
		}
		byValue[kv{in.Key, o.V}] = o.Version
		byVersion[kver{in.Key, o.Version}] = o.V
	}
	return out
}

// Summary is one line about a history and its verdict.
func (h *History) Summary() string {
	resent := ""
	if h.Resent > 0 {
		resent = fmt.Sprintf(", %d writes resent with their key (%d of them settled)", h.Resent, h.Settled)
	}
	return fmt.Sprintf("seed %d: %d calls (%d maybe, %d failed reads left out%s), %d faults, recorded in %s",
		h.Seed, h.Calls, h.Maybe, h.Dropped, resent, h.Faults, h.Took.Round(time.Millisecond))
}

// Reduce finds the shortest prefix of an entity's history, by time, that
// is already not linearizable: the calls returned by a time T, with the
// writes still running at T taken as maybe-operations and the reads
// still running left out (a prefix of a linearizable history so cut is
// linearizable). It returns that prefix, ordered by call, whose last
// return is where the history first goes wrong; nil if the whole
// history is linearizable or the checker times out.
func Reduce(h *History, key int, timeout time.Duration) []porcupine.Operation {
	var ops []porcupine.Operation
	for _, op := range h.Ops {
		if op.Input.(Input).Key == key {
			ops = append(ops, op)
		}
	}
	var last int64
	var times []int64
	for _, op := range ops {
		if op.Output.(Output).R != Unknown {
			times = append(times, op.Return)
			last = max(last, op.Return)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	prefix := func(t int64) []porcupine.Operation {
		var p []porcupine.Operation
		for _, op := range ops {
			switch {
			case op.Call > t:
			case op.Return <= t && op.Output.(Output).R != Unknown:
				p = append(p, op)
			case op.Input.(Input).Kind != Get:
				op.Output = Output{R: Unknown, Err: "still running at the cut"}
				op.Return = last + 1
				p = append(p, op)
			}
		}
		return p
	}
	illegal := func(t int64) bool {
		return porcupine.CheckOperationsTimeout(Model, prefix(t), timeout) == porcupine.Illegal
	}
	if len(times) == 0 || !illegal(times[len(times)-1]) {
		return nil
	}
	i := sort.Search(len(times), func(i int) bool { return illegal(times[i]) })
	p := prefix(times[i])
	sort.Slice(p, func(a, b int) bool { return p[a].Call < p[b].Call })
	return p
}

// Describe is one line for a recorded call: its client, its call and
// return times (ms since the history began) and what it did.
func Describe(op porcupine.Operation) string {
	ret := fmt.Sprintf("%9.3f", float64(op.Return)/1e6)
	if op.Output.(Output).R == Unknown {
		ret = "      end"
	}
	return fmt.Sprintf("client %d [%9.3f, %s] %s", op.ClientId, float64(op.Call)/1e6, ret, describe(op.Input.(Input), op.Output.(Output)))
}
