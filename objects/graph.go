package objects

import (
	"fmt"
)

// Resolver gives the existence-aware checks access to other objects.
type Resolver interface {
	// Resolve returns the object named id, or (nil, nil) when it is absent.
	// An error means a real failure, such as corruption.
	Resolve(id OID) (*Object, error)
	// Shallow reports whether id is a declared shallow-boundary oid
	// (SPEC §2.7): a link to it resolves although the object is absent.
	Shallow(id OID) bool
}

// PresenceChecker is an optional Resolver capability: it reports that an
// object exists without reading it. CheckLinksExist prefers it, as the
// reference checks links with has() and reads only chain predecessors and
// run events, so an object that exists but cannot be read satisfies a link
// yet fails the annotation chain (chain.previous-unavailable).
type PresenceChecker interface {
	// Present reports whether an object named id exists locally; an error
	// means a real failure, not absence.
	Present(id OID) (bool, error)
}

// runStatuses are the legal run statuses (SPEC §1.5.3).
var runStatuses = map[string]bool{"running": true, "paused": true, "completed": true, "failed": true}

// CheckLinksExist requires every link to resolve: to an object r holds or to
// a shallow-boundary oid (SPEC §1.5.6); otherwise link.missing-object.
func CheckLinksExist(links []OID, r Resolver) error {
	pc, hasPresence := r.(PresenceChecker)
	for _, id := range links {
		var present bool
		if hasPresence {
			ok, err := pc.Present(id)
			if err != nil {
				return fmt.Errorf("link %s: %w", id, err)
			}
			present = ok
		} else {
			o, err := r.Resolve(id)
			if err != nil {
				return fmt.Errorf("link %s: %w", id, err)
			}
			present = o != nil
		}
		if !present && !r.Shallow(id) {
			return Errorf(ReasonLinkMissingObject, "linked object %s is missing", id)
		}
	}
	return nil
}

// CheckRunGraph applies the graph rules of SPEC §1.5.3 (op run.graph) to a
// run, in the reference's order: status, legacy_refs, then for each locally
// present event that its parents and causal links lie inside the run's
// events (graph.parent-outside-graph, graph.causal-outside-graph) at a
// strictly earlier index (graph.order-not-topological); and only when every
// event is present, that roots are exactly the parentless events and tips
// exactly the events nobody names as a parent. It returns nil for an object
// that is not a run.
func CheckRunGraph(run *Object, r Resolver) error {
	if run.Type != TypeRun {
		return nil
	}
	if err := checkRunGraph(run, r); err != nil {
		return fmt.Errorf("run %s: %w", run.ID, err)
	}
	return nil
}

func checkRunGraph(run *Object, r Resolver) error {
	g, err := parseRunGraph(run)
	if err != nil {
		return err
	}
	return g.check(r)
}

// runGraph is what the graph rules read of a run whose own payload passed
// the rules that need no other object (status, the events list,
// legacy_refs): its events, and its roots and tips with the error parsing
// each, which counts only where the reference reads them (every event
// present).
type runGraph struct {
	events            []OID
	roots, tips       []OID
	rootsErr, tipsErr error
	// position maps each event to its index, when parseRunGraph needed
	// it (legacy_refs); check builds it otherwise.
	position map[OID]int
}

// parseRunGraph applies the graph rules that read the run alone, in the
// reference's order (status, events, legacy_refs), and returns what the
// rest reads.
func parseRunGraph(run *Object) (*runGraph, error) {
	p := linkParser{o: run, a: run.ID.Algo}
	if run.unparsed {
		// As linkParser.run does: the events list from the bytes of a
		// body SplitRunBody accepts (one DecodeEnvelope accepts), the
		// other members parsed, and never a value per event.
		if rb, err := SplitRunBody(p.a, run.Body); err == nil {
			pl := payload(rb)
			if err := checkStatus(pl); err != nil {
				return nil, err
			}
			events := make([]OID, rb.Len())
			for i := range events {
				events[i] = rb.Event(i)
			}
			if i, j, found := findDuplicate(events); found {
				return nil, Errorf(ReasonLinkRunEventsInvalid, "events names %s twice (entries %d and %d)", events[i], i, j)
			}
			return graphOf(&p, pl, events)
		}
	}
	pl, err := p.payload(ReasonLinkRunEventsInvalid)
	if err != nil {
		return nil, err
	}
	if err := checkStatus(pl); err != nil {
		return nil, err
	}
	events, err := runEvents(&p, pl)
	if err != nil {
		return nil, err
	}
	return graphOf(&p, pl, events)
}

// checkStatus requires a run's status, when present, to be one of the
// legal ones (SPEC §1.5.3).
func checkStatus(pl Value) error {
	if st, ok := pl.Get("status"); ok && (st.Kind != KindString || !runStatuses[st.Str]) {
		return Errorf(ReasonGraphStatusInvalid, "status must be running, paused, completed or failed")
	}
	return nil
}

// graphOf applies legacy_refs' rule to a run's payload pl (its events
// parsed as events) and parses its roots and tips.
func graphOf(p *linkParser, pl Value, events []OID) (*runGraph, error) {
	g := &runGraph{events: events}
	if _, ok := pl.Get("legacy_refs"); ok {
		g.position = positions(events)
		if err := checkLegacyRefs(p, pl, positionIn(g.position)); err != nil {
			return nil, err
		}
	}
	g.roots, g.rootsErr = p.oidList(pl, "roots", TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
	g.tips, g.tipsErr = p.oidList(pl, "tips", TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
	return g, nil
}

// parseLinkedRunGraph is parseRunGraph for a run whose links p parsed
// (p.extract succeeded, so the payload, events, roots and tips parse): it
// takes the lists from p instead of parsing them again.
func parseLinkedRunGraph(p *linkParser) (*runGraph, error) {
	pl := p.runPayload
	if err := checkStatus(pl); err != nil {
		return nil, err
	}
	g := &runGraph{events: p.runLists.events, roots: p.runLists.roots, tips: p.runLists.tips}
	if _, ok := pl.Get("legacy_refs"); ok {
		g.position = positions(g.events)
		if err := checkLegacyRefs(p, pl, positionIn(g.position)); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// check applies the rules that read the run's events through r: for each
// present event, that its parents and causal links lie inside the run at
// strictly earlier indexes; and only when every event is present, that
// roots and tips are exact.
func (g *runGraph) check(r Resolver) error {
	if g.position == nil {
		g.position = positions(g.events)
	}
	complete := true
	parentsOf := make([][]OID, len(g.events)) // by index in the run
	for i, id := range g.events {
		ev, err := r.Resolve(id)
		if err != nil {
			return fmt.Errorf("event %s: %w", id, err)
		}
		if ev == nil {
			complete = false // SPEC §1.5.3: absent events (shallow) are skipped
			continue
		}
		parents, causal, err := eventGraphLinks(ev)
		if err != nil {
			return err
		}
		if err := checkInside(id, i, parents, causal, positionIn(g.position)); err != nil {
			return err
		}
		parentsOf[i] = parents
	}
	if !complete {
		return nil
	}
	wantRoots, wantTips := rootsTipsOf(g.events, parentsOf, g.position)
	return listsEqual(g.roots, g.rootsErr, g.tips, g.tipsErr, wantRoots, wantTips)
}

// positions maps each of events to its index.
func positions(events []OID) map[OID]int {
	position := make(map[OID]int, len(events))
	for i, e := range events {
		position[e] = i
	}
	return position
}

// checkLegacyRefs requires legacy_refs, when present, to map names to
// events of the run (SPEC §1.5.3). As in the reference, a present null is
// not absent.
func checkLegacyRefs(p *linkParser, pl Value, position func(OID) (int, bool)) error {
	refs, ok := pl.Get("legacy_refs")
	if !ok {
		return nil
	}
	if refs.Kind != KindObject {
		return Errorf(ReasonGraphLegacyRefsInvalid, "legacy_refs is a JSON %s, not an object", refs.Kind)
	}
	for _, m := range refs.Object {
		if m.Value.Kind != KindString {
			return Errorf(ReasonGraphLegacyRefsInvalid, "legacy_refs.%s is not an oid string", m.Key)
		}
		id, err := ParseOIDFor(p.a, m.Value.Str)
		if _, in := position(id); err != nil || !in {
			return Errorf(ReasonGraphLegacyRefsInvalid, "legacy_refs.%s does not name an event of the run", m.Key)
		}
	}
	return nil
}

// positionIn looks events up in a map of their positions.
func positionIn(position map[OID]int) func(OID) (int, bool) {
	return func(id OID) (int, bool) {
		i, ok := position[id]
		return i, ok
	}
}

// rootsTipsOf returns the roots and tips a complete run's graph has: the
// parentless events, and the events no event names as a parent.
// parentsOf[i] are the parents of events[i], each inside the run (at
// position[parent]: checkInside held for every event).
func rootsTipsOf(events []OID, parentsOf [][]OID, position map[OID]int) (wantRoots, wantTips map[OID]bool) {
	named := make([]bool, len(events))
	wantRoots = make(map[OID]bool)
	for i, e := range events {
		if len(parentsOf[i]) == 0 {
			wantRoots[e] = true
		}
		for _, parent := range parentsOf[i] {
			named[position[parent]] = true
		}
	}
	wantTips = make(map[OID]bool)
	for i, e := range events {
		if !named[i] {
			wantTips[e] = true
		}
	}
	return wantRoots, wantTips
}

// sameSet reports whether the distinct members of ids are exactly want.
func sameSet(ids []OID, want map[OID]bool) bool {
	seen := make(map[OID]bool, len(ids))
	for _, id := range ids {
		if !want[id] {
			return false
		}
		seen[id] = true
	}
	return len(seen) == len(want)
}

// eventGraphLinks returns an event's parent_ids and causal_ids, checked as
// Links checks them.
func eventGraphLinks(ev *Object) (parents, causal []OID, err error) {
	p := linkParser{o: ev, a: ev.ID.Algo}
	if ev.Type != TypeEvent {
		return nil, nil, Errorf(ReasonLinkRunEventsInvalid, "run event %s is a %s object", ev.ID, ev.Type)
	}
	pl, err := p.payload(ReasonLinkParentIdsNotEvents)
	if err != nil {
		return nil, nil, fmt.Errorf("event %s: %w", ev.ID, err)
	}
	parents, err = p.oidList(pl, "parent_ids", TypeEvent, ReasonLinkParentIdsNotEvents, ReasonLinkParentIdsDuplicate)
	if err != nil {
		return nil, nil, fmt.Errorf("event %s: %w", ev.ID, err)
	}
	causal, err = p.oidList(pl, "causal_ids", TypeEvent, ReasonLinkParentIdsNotEvents, ReasonLinkParentIdsDuplicate)
	if err != nil {
		return nil, nil, fmt.Errorf("event %s: %w", ev.ID, err)
	}
	return parents, causal, nil
}
