package gates

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// GateLogOptions configures GateLog.
type GateLogOptions struct {
	// Phase keeps one phase's gate runs; "" keeps all.
	Phase gate.Phase
	// Limit keeps the newest N entries; 0 keeps all.
	Limit int
}

// GateLogEntry is one gate run.
type GateLogEntry struct {
	Time       float64           `json:"time"`
	Ref        string            `json:"ref"`
	Run        string            `json:"run"`
	Phase      string            `json:"phase"`
	Decision   string            `json:"decision"`
	Outcome    string            `json:"outcome"`
	Contract   string            `json:"contract"`
	Verdicts   map[string]string `json:"verdicts"`
	RootCauses []string          `json:"root_causes"`
}

// GateLogResult is the history of gate runs, newest first.
type GateLogResult struct {
	Entries []*GateLogEntry `json:"entries"`
}

// GateLog lists the gate runs recorded under GateRefPrefix, newest first:
// every reflog row of every gate ref is one gate run (each gate run moves
// its phase's ref), read from the run's "gate" member. `tine diff A B`
// between two of them shows which constraints' evidence changed.
func GateLog(ctx context.Context, r *plumbing.Repo, opt GateLogOptions) (*GateLogResult, error) {
	var names []string
	err := r.Refs().List(ctx, GateRefPrefix, func(name string, _ objects.OID) error {
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", GateRefPrefix, err)
	}
	out := &GateLogResult{Entries: []*GateLogEntry{}}
	for _, name := range names {
		rows, err := r.Refs().Reflog(name)
		if err != nil && !errors.Is(err, refs.ErrNotFound) {
			return nil, fmt.Errorf("reflog of %s: %w", name, err)
		}
		for _, row := range rows {
			e, err := gateLogEntry(ctx, r.Objects(), name, row.New)
			if err != nil {
				return nil, err
			}
			if opt.Phase == "" || e.Phase == string(opt.Phase) {
				e.Time = float64(row.TimeNS) / 1e9
				out.Entries = append(out.Entries, e)
			}
		}
	}
	sort.SliceStable(out.Entries, func(i, j int) bool {
		a, b := out.Entries[i], out.Entries[j]
		if a.Time != b.Time {
			return a.Time > b.Time
		}
		return a.Run > b.Run
	})
	if opt.Limit > 0 && len(out.Entries) > opt.Limit {
		out.Entries = out.Entries[:opt.Limit]
	}
	return out, nil
}

// gateLogEntry reads a gate run's "gate" member.
func gateLogEntry(ctx context.Context, objs objects.Getter, ref string, id objects.OID) (*GateLogEntry, error) {
	e := &GateLogEntry{Ref: ref, Run: id.String(), Verdicts: map[string]string{}, RootCauses: []string{}}
	o, err := objs.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("gate run %s (%s): %w", id, ref, err)
	}
	g, ok := o.Value.Get("gate")
	if o.Type != objects.TypeRun || !ok || g.Kind != objects.KindObject {
		e.Decision = "unknown"
		return e, nil
	}
	e.Phase, e.Decision, e.Outcome, e.Contract = runs.Str(g, "phase"), runs.Str(g, "decision"), runs.Str(g, "outcome"), runs.Str(g, "contract")
	if v, ok := g.Get("verdicts"); ok && v.Kind == objects.KindObject {
		for _, mem := range v.Object {
			if mem.Value.Kind == objects.KindString {
				e.Verdicts[mem.Key] = mem.Value.Str
			}
		}
	}
	if v, ok := g.Get("root_causes"); ok && v.Kind == objects.KindArray {
		for _, x := range v.Array {
			if x.Kind == objects.KindString {
				e.RootCauses = append(e.RootCauses, x.Str)
			}
		}
	}
	return e, nil
}

// gateRuns returns the runs the refs under GateRefPrefix name now.
func gateRuns(ctx context.Context, g objects.Getter, rl runs.RefLister) ([]*runs.Run, error) {
	var out []*runs.Run
	err := runs.ListRuns(ctx, rl, g, GateRefPrefix, func(_ string, run *runs.Run) error {
		out = append(out, run)
		return nil
	})
	return out, err
}
