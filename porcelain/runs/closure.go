package runs

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// legacyFields are the v2-migration run fields (SPEC §5.4). They describe
// the migrated run exactly, so a writer deriving a new run from a migrated
// payload drops the whole set.
var legacyFields = map[string]bool{
	"legacy_blob": true, "legacy_format": true, "legacy_verification": true,
	"migration_map_blob": true, "signature_scope": true,
}

// Closure returns the events of r that are ids or their ancestors through
// parent_ids and causal_ids, in the run's order. An id not in r is an error
// wrapping ErrEventNotInRun. A Missing event contributes itself only: its
// links are unknown (a shallow boundary).
func (r *Run) Closure(ids ...objects.OID) ([]*Event, error) {
	keep := make(map[objects.OID]bool, len(r.Events))
	stack := make([]objects.OID, 0, len(ids))
	for _, id := range ids {
		if _, ok := r.index[id]; !ok {
			return nil, fmt.Errorf("event %s, run %s: %w", id, r.ID, ErrEventNotInRun)
		}
		stack = append(stack, id)
	}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if keep[id] {
			continue
		}
		i, ok := r.index[id]
		if !ok {
			// SPEC §1.5 graph rules keep links inside the run; a link
			// outside it would have failed validation on read.
			return nil, fmt.Errorf("event %s links %s outside run %s: %w", ids, id, r.ID, ErrEventNotInRun)
		}
		keep[id] = true
		e := r.Events[i]
		stack = append(stack, e.Parents...)
		stack = append(stack, e.Causal...)
	}
	out := make([]*Event, 0, len(keep))
	for _, e := range r.Events {
		if keep[e.ID] {
			out = append(out, e)
		}
	}
	return out, nil
}

// RootsTips computes roots (events without parents) and tips (events no
// other event names as a parent), in the given order, as SPEC §1.5's graph
// rules require of a run whose events are all present. Causal links do not
// count as parents.
func RootsTips(events []*Event) (roots, tips []objects.OID) {
	isParent := make(map[objects.OID]bool)
	for _, e := range events {
		for _, p := range e.Parents {
			isParent[p] = true
		}
	}
	roots, tips = []objects.OID{}, []objects.OID{}
	for _, e := range events {
		if len(e.Parents) == 0 {
			roots = append(roots, e.ID)
		}
		if !isParent[e.ID] {
			tips = append(tips, e.ID)
		}
	}
	return roots, tips
}

// OIDValues turns oids into a JSON array of their spellings.
func OIDValues(ids []objects.OID) objects.Value {
	vs := make([]objects.Value, len(ids))
	for i, id := range ids {
		vs[i] = objects.String(id.String())
	}
	return objects.Array(vs...)
}

// eventOIDs returns the ids of events.
func eventOIDs(events []*Event) []objects.OID {
	out := make([]objects.OID, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

// derivePayload returns base (an object payload, or the zero Value) with
// the members of set replaced or added and the members in drop removed.
func derivePayload(base objects.Value, set []objects.Member, drop map[string]bool) objects.Value {
	replaced := make(map[string]bool, len(set))
	for _, m := range set {
		replaced[m.Key] = true
	}
	out := make([]objects.Member, 0, len(base.Object)+len(set))
	for _, m := range base.Object {
		if replaced[m.Key] || drop[m.Key] {
			continue
		}
		out = append(out, m)
	}
	out = append(out, set...)
	return objects.ObjectValue(out...)
}

// subRunPayload is the payload of the run restricted to events: the
// source's fields with events, roots and tips recomputed, legacy fields
// and legacy_refs dropped, and forked_from kept only while its event stays.
func subRunPayload(src *Run, events []*Event) objects.Value {
	roots, tips := RootsTips(events)
	drop := map[string]bool{"legacy_refs": true}
	for k := range legacyFields {
		drop[k] = true
	}
	in := make(map[objects.OID]bool, len(events))
	for _, e := range events {
		in[e.ID] = true
	}
	if src.ForkedFrom != nil && !in[src.ForkedFrom.Event] {
		drop["forked_from"] = true
	}
	return derivePayload(src.Value, []objects.Member{
		{Key: "events", Value: OIDValues(eventOIDs(events))},
		{Key: "roots", Value: OIDValues(roots)},
		{Key: "tips", Value: OIDValues(tips)},
	}, drop)
}
