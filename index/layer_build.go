package index

import (
	"slices"

	"github.com/tinehq/tine/objects"
)

// delta computes the layer that brings the loaded catalog (b.old) to st,
// reading only what is new: the run objects of the runs it lacks and, of
// their events, those the run they extend or fork does not list. Its cost
// is the new runs' event lists (compared as oids, never read as objects)
// plus the new events, not the catalog's size.
func (b *builder) delta(st *state) (*delta, error) {
	l := &delta{refs: refChanges(b.old.refs, st.refs)}
	// Read in the store's order (eachFreshRun), kept in oid order.
	targets := runTargets(st.refs)
	made := make(map[objects.OID]layerRun)
	err := b.eachFreshRun(targets, func(run objects.OID) error {
		r, err := b.layerRun(run, st.refs)
		made[run] = r
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, run := range targets {
		if r, ok := made[run]; ok {
			l.runs = append(l.runs, r)
		}
	}
	seen := map[objects.OID]bool{}
	for i := range l.runs {
		for _, ev := range l.runs[i].own {
			if _, ok := b.oldEvent(ev); ok || seen[ev] {
				continue
			}
			seen[ev] = true
			s, ok := b.summ[ev]
			if !ok {
				// Unreachable: layerRun read every own event the old
				// table lacks. Kept missing rather than guessed.
				s = &EventSummary{ID: ev, Missing: true}
			}
			l.events = append(l.events, *s)
		}
	}
	slices.SortFunc(l.events, func(x, y EventSummary) int { return compareOID(x.ID, y.ID) })
	var added []objects.OID
	added, l.attsGone = sortedDiff(st.atts, b.old.atts, func(a *Attestation) objects.OID { return a.ID })
	if l.atts, err = b.attestations(added); err != nil {
		return nil, err
	}
	added, l.annsGone = sortedDiff(st.anns, b.old.anns, func(a *Annotation) objects.OID { return a.ID })
	if l.anns, err = b.annotations(added); err != nil {
		return nil, err
	}
	return l, nil
}

// layerRun indexes a run the old catalog lacks as the longest prefix it
// shares with a run it may extend (the ref's old run or its fork source:
// related), whichever shares more, plus its own events. Its evidence rows are the
// related run's rows for the events it keeps plus the rows of its own
// events, read unless the related run lists them.
func (b *builder) layerRun(run objects.OID, refs []RefEntry) (layerRun, error) {
	r := layerRun{entry: RunEntry{Run: run}}
	o, err := b.getRun(run)
	if err != nil || o == nil {
		return r, err
	}
	var from *RunEntry
	var fev []int32 // the related run's events, positions in b.old
	at := func(n int32) objects.OID { return b.old.events[n].ID }
	// Of the related runs, the one sharing the longest prefix: a ref
	// that named an unrelated run and now names a fork of a long run
	// shares nothing with its old run and everything but the tail with
	// the fork's source.
	for _, rel := range b.related(o, refs) {
		n := 0
		for n < len(rel.Events) && n < len(o.events) && at(rel.Events[n]) == o.events[n] {
			n++
		}
		if from == nil || n > r.prefix {
			from, fev, r.prefix = rel, rel.Events, n
		}
	}
	if r.prefix > 0 {
		r.from = from.Run
	}
	r.own = o.events[r.prefix:]
	own := make(map[objects.OID]bool, len(r.own))
	for _, ev := range r.own {
		own[ev] = true
	}
	// suffix: what the related run lists past the shared prefix.
	var suffix map[objects.OID]bool
	if from != nil && r.prefix < len(fev) {
		suffix = make(map[objects.OID]bool, len(fev)-r.prefix)
		for _, n := range fev[r.prefix:] {
			suffix[at(n)] = true
		}
	}
	e := &r.entry
	// An append keeps every row of the run it extends: the layer holds
	// only the new rows (inherit).
	r.inherit = from != nil && r.prefix == len(fev) && r.prefix > 0
	if from != nil && !r.inherit {
		for _, k := range from.Keyed {
			if !suffix[k.Event] || own[k.Event] || slices.ContainsFunc(fev[:r.prefix], func(n int32) bool { return at(n) == k.Event }) {
				e.Keyed = append(e.Keyed, k)
			}
		}
	}
	for _, ev := range r.own {
		if suffix[ev] {
			continue // its rows are the related run's, kept above
		}
		keys, err := b.eventKeys(ev)
		if err != nil {
			return r, err
		}
		e.Keyed = append(e.Keyed, keys...)
	}
	slices.SortFunc(e.Keyed, compareKeyed)
	e.Keyed = slices.CompactFunc(e.Keyed, func(x, y KeyedEvent) bool { return compareKeyed(x, y) == 0 })
	if r.inherit {
		// The rows from already holds need not be in the layer.
		e.Keyed = slices.DeleteFunc(e.Keyed, func(k KeyedEvent) bool {
			_, held := slices.BinarySearchFunc(from.Keyed, k, compareKeyed)
			return held
		})
	}
	e.Status, e.CreatedAt, e.HasCreatedAt = runStatus(o)
	r.tips, e.Exact = runTips(o)
	e.Fork, e.ForkExact = runFork(o)
	for _, ev := range r.own {
		if _, ok := b.summ[ev]; ok {
			continue
		}
		if _, ok := b.oldEvent(ev); ok {
			continue
		}
		if err := b.readEvent(ev); err != nil {
			return r, err
		}
	}
	return r, nil
}

// refChanges returns the refs of cur that old lacks or names otherwise,
// and (with a zero id) those old has that cur lacks, sorted by name.
func refChanges(old, cur []RefEntry) []RefEntry {
	var out []RefEntry
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && old[i].Name < cur[j].Name:
			out = append(out, RefEntry{Name: old[i].Name})
			i++
		case i == len(old) || cur[j].Name < old[i].Name:
			out = append(out, cur[j])
			j++
		default:
			if old[i].ID != cur[j].ID {
				out = append(out, cur[j])
			}
			i, j = i+1, j+1
		}
	}
	return out
}

// sortedDiff returns the ids of cur that old lacks and those old holds
// that cur lacks, both sorted by oid.
func sortedDiff[T any](cur []objects.OID, old []T, id func(*T) objects.OID) (added, gone []objects.OID) {
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && compareOID(id(&old[i]), cur[j]) < 0:
			gone = append(gone, id(&old[i]))
			i++
		case i == len(old) || compareOID(cur[j], id(&old[i])) < 0:
			added = append(added, cur[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return added, gone
}
