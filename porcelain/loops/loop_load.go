package loops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// loadLoop reads every run under experiments/NAME/ (see loopData). With
// branch set it also keeps that branch's trajectory ("best" names the run
// at experiments/NAME/best).
//
// The runs are read in the store's read order (runs.ListRunsReadOrder),
// keeping of each what its ref needs and its event list as numbers; then
// the refs are taken in name order, as they always were, so the first
// reader of an event, and with it the order of the steps, is what ref
// order makes it.
func loadLoop(ctx context.Context, g objects.Getter, rl runs.RefLister, name, branch string) (*loopData, error) {
	name = strings.TrimSuffix(strings.TrimPrefix(name, "experiments/"), "/")
	prefix, err := loopPrefix(name)
	if err != nil {
		return nil, err
	}
	d := &loopData{name: name, seen: map[objects.OID]int{}}
	var found []loopRef
	var ev eventTable
	err = runs.ListRunsReadOrder(ctx, rl, g, prefix, func(ref string, run *runs.Run) error {
		id := strings.TrimPrefix(ref, prefix)
		if strings.Contains(id, "/") {
			return nil
		}
		lr := loopRef{id: id, ref: ref, run: run.ID, events: ev.numbers(run.EventIDs())}
		lv, _ := run.Value.Get("loop")
		if id == branch {
			lr.trailGate, lr.trailLoop = strings.Clone(runs.Str(lv, "gate")), strings.Clone(runs.Str(lv, "branch"))
		}
		if id == LoopBestBranch {
			rv, _ := lv.Get("result")
			d.hasBest, d.bestBranch = true, strings.Clone(runs.Str(lv, "branch"))
			d.bestGate, d.bestSanitized = strings.Clone(runs.Str(rv, "gate")), intAttr(rv, "sanitized")
		} else {
			lr.info = branchInfo(id, ref, run)
		}
		found = append(found, lr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b loopRef) int { return strings.Compare(a.ref, b.ref) })
	for _, lr := range found {
		ids := ev.oids(lr.events)
		if err := d.readEvents(ctx, g, lr.run, ids); err != nil {
			return nil, fmt.Errorf("ref %s: %w", lr.ref, err)
		}
		if lr.id == branch {
			d.trailFound, d.trailGate, d.trailLoop = true, lr.trailGate, lr.trailLoop
			for _, eid := range ids {
				if i, ok := d.seen[eid]; ok && i >= 0 {
					d.trail = append(d.trail, d.steps[i])
				}
			}
		}
		if lr.id != LoopBestBranch {
			d.branches = append(d.branches, lr.info)
		}
	}
	if len(d.branches) == 0 {
		return nil, fmt.Errorf("loop %q: %w (no refs under %s)", name, ErrNoLoop, prefix)
	}
	sort.SliceStable(d.branches, func(i, j int) bool { return branchLess(d.branches[i].ID, d.branches[j].ID) })
	return d, nil
}

// loopRef is what loadLoop keeps of a branch run between reading it and
// taking its ref in order: its summary, its events as numbers of an
// eventTable (a 1,000-branch loop lists ~500,000 event oids over its
// runs, ~3,000 distinct), and, for the branch asked for, its loop.gate
// and loop.branch.
type loopRef struct {
	id, ref              string
	run                  objects.OID
	events               []int32
	info                 LoopBranchInfo
	trailGate, trailLoop string
}

// eventTable numbers event oids, each distinct oid once.
type eventTable struct {
	ids []objects.OID
	num map[objects.OID]int32
}

// numbers returns the numbers of ids, adding the new ones.
func (t *eventTable) numbers(ids []objects.OID) []int32 {
	if t.num == nil {
		t.num = map[objects.OID]int32{}
	}
	out := make([]int32, len(ids))
	for i, id := range ids {
		n, ok := t.num[id]
		if !ok {
			n = int32(len(t.ids))
			t.ids = append(t.ids, id)
			t.num[id] = n
		}
		out[i] = n
	}
	return out
}

// oids returns the oids numbered ns.
func (t *eventTable) oids(ns []int32) []objects.OID {
	out := make([]objects.OID, len(ns))
	for i, n := range ns {
		out[i] = t.ids[n]
	}
	return out
}

// readEvents reads the events of ids not read yet (each read re-verifies
// the oid) and keeps their summaries: a LoopStep for an iteration, the
// goal and policy of the loop's init event. An absent event (a shallow
// boundary) is skipped, as loop show always did; a corrupt one is an
// error naming the run and the event.
func (d *loopData) readEvents(ctx context.Context, g objects.Getter, runID objects.OID, ids []objects.OID) error {
	for _, eid := range ids {
		if _, ok := d.seen[eid]; ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		d.seen[eid] = -1
		o, err := g.Get(ctx, eid)
		if errors.Is(err, objects.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("run %s: event %s: %w", runID, eid, err)
		}
		e, err := runs.DecodeEvent(o)
		if err != nil {
			return fmt.Errorf("run %s: %w", runID, err)
		}
		if s, ok := loopStepOf(e); ok {
			s.Branch, s.Observation, s.StateDigest = strings.Clone(s.Branch), strings.Clone(s.Observation), strings.Clone(s.StateDigest)
			d.seen[eid] = len(d.steps)
			d.steps = append(d.steps, s)
			continue
		}
		if runs.Str(e.Attributes, "phase") == LoopPhaseInit && (!d.hasInit || runs.Str(e.Attributes, "loop") == d.name) {
			d.hasInit, d.goal = true, strings.Clone(runs.Str(e.Attributes, "goal"))
			d.policy = nil
			if p, ok := e.Attributes.Get("policy"); ok {
				d.policy, _ = objects.CanonV3(p)
			}
		}
	}
	return nil
}
