package objects

import (
	"errors"
	"fmt"
)

// ErrNotAppend reports that a run is not its base run plus events appended
// at the end, so CheckRunAppend cannot judge it incrementally; callers fall
// back to the full CheckRunGraph.
var ErrNotAppend = errors.New("run is not an append to its base")

// CheckRunAppend applies the run-graph rules of CheckRunGraph (SPEC §1.5.3)
// to run, a run whose events are base's events followed by the events of
// added, in that order, without reading any event of base. base must be a
// run that passed CheckRunGraph with every event present (a complete run:
// roots and tips checked); tine writes a run only after that check (or this
// one, against its own base), so the run a ref names is such a run in a
// repository without a shallow boundary.
//
// Given that, each rule reduces to the new part:
//   - status and legacy_refs are checked on run as a whole (no event reads;
//     legacy_refs against the set of run's event ids);
//   - an event of base keeps its index and its parents, so its parents and
//     causal links still lie inside the run at earlier indexes; only the
//     added events' links are checked;
//   - roots are exactly the parentless events: base's roots plus the
//     parentless added events;
//   - tips are exactly the events no event names as a parent: base's tips
//     and the added events, less every parent an added event names (an
//     event of base named by an event of base was never a tip).
//
// The result is the result of CheckRunGraph on run
// (TestCheckRunAppendMatchesFull compares them on randomized runs). The
// appended events are read through r; a run whose events do not start
// with base's, or whose appended events r does not hold, is an error
// wrapping ErrNotAppend (the full check decides those).
func CheckRunAppend(run, base *Object, r Resolver) error {
	if run.Type != TypeRun || base.Type != TypeRun {
		return fmt.Errorf("run %s: %w: not a run", run.ID, ErrNotAppend)
	}
	if err := checkRunAppend(run, base, r); err != nil {
		return fmt.Errorf("run %s: %w", run.ID, err)
	}
	return nil
}

func checkRunAppend(run, base *Object, r Resolver) error {
	p := linkParser{o: run, a: run.ID.Algo}
	pl, err := p.payload(ReasonLinkRunEventsInvalid)
	if err != nil {
		return err
	}
	bp := linkParser{o: base, a: base.ID.Algo}
	bpl, err := bp.payload(ReasonLinkRunEventsInvalid)
	if err != nil {
		return fmt.Errorf("base %s: %w", base.ID, err)
	}
	baseEvents, err := runEvents(&bp, bpl)
	if err != nil {
		return fmt.Errorf("base %s: %w", base.ID, err)
	}
	if st, ok := pl.Get("status"); ok && (st.Kind != KindString || !runStatuses[st.Str]) {
		return Errorf(ReasonGraphStatusInvalid, "status must be running, paused, completed or failed")
	}
	events, err := runEvents(&p, pl)
	if err != nil {
		return err
	}
	if len(events) < len(baseEvents) {
		return fmt.Errorf("%w: %d events, base %s has %d", ErrNotAppend, len(events), base.ID, len(baseEvents))
	}
	for i, id := range baseEvents {
		if events[i] != id {
			return fmt.Errorf("%w: event %d differs from base %s", ErrNotAppend, i, base.ID)
		}
	}
	added, err := resolveAppended(r, events[len(baseEvents):])
	if err != nil {
		return err
	}
	// A set of ids, no event body read: membership and index.
	position := make(map[OID]int, len(events))
	for i, e := range events {
		position[e] = i
	}
	if err := checkLegacyRefs(&p, pl, positionIn(position)); err != nil {
		return err
	}
	wantRoots, err := oidSet(&bp, bpl, "roots")
	if err != nil {
		return fmt.Errorf("base %s: %w", base.ID, err)
	}
	wantTips, err := oidSet(&bp, bpl, "tips")
	if err != nil {
		return fmt.Errorf("base %s: %w", base.ID, err)
	}
	for k, ev := range added {
		i := len(baseEvents) + k
		parents, causal, err := eventGraphLinks(ev)
		if err != nil {
			return err
		}
		if err := checkInside(ev.ID, i, parents, causal, positionIn(position)); err != nil {
			return err
		}
		if len(parents) == 0 {
			wantRoots[ev.ID] = true
		}
		wantTips[ev.ID] = true
		for _, l := range parents {
			delete(wantTips, l)
		}
	}
	return checkListsEqual(&p, pl, wantRoots, wantTips)
}

// checkInside applies the per-event rules of CheckRunGraph to the event id
// at index i: links inside the run, at strictly earlier indexes. position
// gives a run event's index.
func checkInside(id OID, i int, parents, causal []OID, position func(OID) (int, bool)) error {
	for _, l := range parents {
		if _, ok := position(l); !ok {
			return Errorf(ReasonGraphParentOutsideGraph, "event %s has parent %s outside the run", id, l)
		}
	}
	for _, l := range causal {
		if _, ok := position(l); !ok {
			return Errorf(ReasonGraphCausalOutsideGraph, "event %s has causal link %s outside the run", id, l)
		}
	}
	for _, l := range append(parents[:len(parents):len(parents)], causal...) {
		if j, _ := position(l); j >= i {
			return Errorf(ReasonGraphOrderNotTopological, "event %s comes before its dependency %s", id, l)
		}
	}
	return nil
}

// oidSet reads a run's roots or tips as a set.
func oidSet(p *linkParser, pl Value, field string) (map[OID]bool, error) {
	ids, err := p.oidList(pl, field, TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
	if err != nil {
		return nil, err
	}
	set := make(map[OID]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set, nil
}

// checkListsEqual compares a run's roots and tips with the wanted sets, with
// the full check's reasons and order (listsEqual).
func checkListsEqual(p *linkParser, pl Value, wantRoots, wantTips map[OID]bool) error {
	roots, rootsErr := p.oidList(pl, "roots", TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
	if rootsErr != nil {
		return rootsErr
	}
	tips, tipsErr := p.oidList(pl, "tips", TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
	return listsEqual(roots, rootsErr, tips, tipsErr, wantRoots, wantTips)
}

// listsEqual compares parsed roots and tips (each with the error parsing
// it) with the wanted sets: roots first, then tips.
func listsEqual(roots []OID, rootsErr error, tips []OID, tipsErr error, wantRoots, wantTips map[OID]bool) error {
	if rootsErr != nil {
		return rootsErr
	}
	if !sameSet(roots, wantRoots) {
		return Errorf(ReasonGraphRootsMismatch, "roots are not exactly the parentless events")
	}
	if tipsErr != nil {
		return tipsErr
	}
	if !sameSet(tips, wantTips) {
		return Errorf(ReasonGraphTipsMismatch, "tips are not exactly the events no event names as a parent")
	}
	return nil
}

// RunEventIDs returns the events list of a run object, checked as Links
// checks it (event oids of the run's hash profile, no duplicates).
func RunEventIDs(run *Object) ([]OID, error) {
	if run.Type != TypeRun {
		return nil, Errorf(ReasonLinkRunEventsInvalid, "%s is a %s object, not a run", run.ID, run.Type)
	}
	p := linkParser{o: run, a: run.ID.Algo}
	pl, err := p.payload(ReasonLinkRunEventsInvalid)
	if err != nil {
		return nil, err
	}
	return runEvents(&p, pl)
}

// resolveAppended reads the events an append adds through r; one that r
// does not hold is ErrNotAppend (an append writes its events first).
func resolveAppended(r Resolver, ids []OID) ([]*Object, error) {
	out := make([]*Object, 0, len(ids))
	for _, id := range ids {
		ev, err := r.Resolve(id)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", id, err)
		}
		if ev == nil {
			return nil, fmt.Errorf("%w: appended event %s is absent", ErrNotAppend, id)
		}
		out = append(out, ev)
	}
	return out, nil
}
