package runs

import (
	"context"
	"strings"

	"github.com/tinehq/tine/objects"
)

// The two sides of a diff, read lazily: which events each run holds comes
// from its event list; the divergent events are read once and kept, each
// shared event is read once and kept only as an eventSummary.

// runIDs returns a run's event oids in its order.
func runIDs(r *Run) []objects.OID {
	if !r.EventsLoaded() {
		return r.EventIDs()
	}
	ids := make([]objects.OID, len(r.Events))
	for i, e := range r.Events {
		ids[i] = e.ID
	}
	return ids
}

// oidSet returns ids as a set.
func oidSet(ids []objects.OID) map[objects.OID]bool {
	m := make(map[objects.OID]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// divergent reads the events of run at positions idx of ids.
func divergent(ctx context.Context, g objects.Getter, run *Run, ids []objects.OID, idx []int) ([]*Event, error) {
	out := make([]*Event, len(idx))
	for k, i := range idx {
		e, err := runEvent(ctx, g, run, ids[i])
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	return out, nil
}

// eventSummary is what a diff side needs of an event: its tool-path step
// and its meters.
type eventSummary struct {
	step                   string
	cost, duration, tokens float64
	score                  *float64
	missing                bool
}

// summarize reduces an event to its eventSummary. The step is cloned: it
// may be a slice of the event's parsed body, which a summary must not keep.
func summarize(e *Event) eventSummary {
	return eventSummary{step: strings.Clone(toolStep(e)), cost: e.Cost, duration: e.Duration, tokens: e.Tokens(), score: e.Score, missing: e.Missing}
}

// sharedSummaries summarizes the events both a and b hold (the positions
// of idsA not in divA), each read once. An event is its oid, so either
// run's copy is the event: where a's is only a placeholder (an event its
// repository does not store, beyond the shallow boundary) and b holds the
// event (a .tine file diffed against a shallow clone holds every event it
// lists), b's copy is summarized, and both sides show it. A summary kept
// from a's placeholder would label b's side "beyond the shallow
// boundary" in its tool path and leave its totals short.
func sharedSummaries(ctx context.Context, g objects.Getter, a, b *Run, idsA []objects.OID, divA []int) (map[objects.OID]eventSummary, error) {
	shared := make(map[objects.OID]eventSummary, len(idsA)-len(divA))
	k := 0
	for i, id := range idsA {
		if k < len(divA) && divA[k] == i {
			k++
			continue
		}
		e, err := runEvent(ctx, g, a, id)
		if err != nil {
			return nil, err
		}
		if e.Missing {
			eb, err := runEvent(ctx, g, b, id)
			if err != nil {
				return nil, err
			}
			if !eb.Missing {
				e = eb
			}
		}
		shared[id] = summarize(e)
	}
	return shared, nil
}

// diffSide summarises one run: totals, score and tool path, in the run's
// order (so sums round as Run.Totals does). div and evs are the run's
// divergent positions and events; every other event is shared, read once
// for both sides through shared.
func diffSide(ctx context.Context, g objects.Getter, r *Run, ids []objects.OID, div []int, evs []*Event, shared map[objects.OID]eventSummary) (DiffSide, error) {
	s := DiffSide{Run: r.ID.String(), Stored: r.Stored, Totals: Totals{Events: len(ids)}, ToolPath: make([]string, len(ids))}
	k := 0
	for i, id := range ids {
		var sum eventSummary
		if k < len(div) && div[k] == i {
			sum = summarize(evs[k])
			k++
		} else if c, ok := shared[id]; ok {
			sum = c
		} else {
			e, err := runEvent(ctx, g, r, id)
			if err != nil {
				return DiffSide{}, err
			}
			sum = summarize(e)
			shared[id] = sum
		}
		s.ToolPath[i] = sum.step
		s.Totals.Cost += sum.cost
		s.Totals.Duration += sum.duration
		s.Totals.Tokens += sum.tokens
		if sum.missing {
			s.Totals.Missing++
		}
		if sum.score != nil {
			v := *sum.score
			s.Score = &v
		}
	}
	return s, nil
}
