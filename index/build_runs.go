package index

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/tinehq/tine/objects"
)

// indexRun computes the evidence rows of a run the old catalog does not
// hold. Appending to a run writes a new run whose events extend the old
// one's, and a fork shares its source's events, so when the run's ref
// previously named an indexed run, or the run was forked from one, only the
// events that run lacks are read (ARCHITECTURE §4: runs are snapshots).
func (b *builder) indexRun(run objects.OID, refs []RefEntry) (RunEntry, error) {
	e := RunEntry{Run: run}
	o, err := b.getRun(run)
	if err != nil || o == nil {
		return e, err
	}
	events := o.events
	var known map[objects.OID]bool
	for _, rel := range b.related(o, refs) {
		ro, err := b.getRun(rel.Run)
		if err != nil {
			return e, err
		}
		if ro == nil {
			continue
		}
		inRun := make(map[objects.OID]bool, len(events))
		for _, ev := range events {
			inRun[ev] = true
		}
		known = make(map[objects.OID]bool)
		for _, ev := range ro.events {
			known[ev] = true
		}
		for _, k := range rel.Keyed {
			if inRun[k.Event] {
				e.Keyed = append(e.Keyed, k)
			}
		}
		break
	}
	for _, ev := range events {
		if known[ev] {
			continue
		}
		keys, err := b.eventKeys(ev)
		if err != nil {
			return e, err
		}
		e.Keyed = append(e.Keyed, keys...)
	}
	slices.SortFunc(e.Keyed, compareKeyed)
	e.Keyed = slices.CompactFunc(e.Keyed, func(x, y KeyedEvent) bool { return compareKeyed(x, y) == 0 })
	return e, b.summarizeRun(o, events, &e)
}

// related returns the indexed runs whose events o most likely extends: the
// old values of the refs that now name o, then its fork source.
func (b *builder) related(o *runView, refs []RefEntry) []*RunEntry {
	var out []*RunEntry
	for _, r := range refs {
		if r.ID != o.id {
			continue
		}
		if prev, ok := b.oldRef[r.Name]; ok {
			if e, ok := b.oldRun[prev]; ok {
				out = append(out, e)
			}
		}
	}
	if src, ok := forkSource(o); ok {
		if e, ok := b.oldRun[src]; ok {
			out = append(out, e)
		}
	}
	return out
}

// eventKeys returns an event's evidence rows, reading each event at most
// once per build (forks share events).
func (b *builder) eventKeys(ev objects.OID) ([]KeyedEvent, error) {
	if keys, ok := b.events[ev]; ok {
		return keys, nil
	}
	if err := b.readEvent(ev); err != nil {
		return nil, err
	}
	return b.events[ev], nil
}

// readEvent reads an event once and keeps both its evidence rows and its
// summary; an absent event is summarized as missing.
func (b *builder) readEvent(ev objects.OID) error {
	o, err := b.get(ev)
	if err != nil {
		return err
	}
	var keys []KeyedEvent
	s := EventSummary{ID: ev, Missing: true}
	if o != nil && o.Type == objects.TypeEvent {
		keys = extractKeys(o, b.rules)
		s = summarizeEvent(o)
	}
	b.events[ev] = keys
	b.summ[ev] = &s
	return nil
}

// runTargets returns the distinct run-typed targets of refs, sorted.
func runTargets(refs []RefEntry) []objects.OID {
	var out []objects.OID
	for _, r := range refs {
		if r.ID.Type == objects.TypeRun {
			out = append(out, r.ID)
		}
	}
	sortOIDs(out)
	return slices.Compact(out)
}

// sortOIDs sorts ids by their spelling (objects.OID.Compare).
func sortOIDs(ids []objects.OID) {
	slices.SortFunc(ids, compareOID)
}

// compareString orders names bytewise, as refs.Store.List does.
func compareString(a, b string) int { return cmp.Compare(a, b) }

// compareOID orders oids exactly as objects.OID.Compare (by their
// spelling "type:algo:hex"), without building the strings: no type name
// is a prefix of another, so the spelling orders by type, algo, then
// digest bytes (lower-case hex keeps byte order). Loading a catalog of
// 50,000 events sorts and checks that many oids.
func compareOID(a, b objects.OID) int {
	return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Algo, b.Algo), bytes.Compare(a.Digest[:], b.Digest[:]))
}
