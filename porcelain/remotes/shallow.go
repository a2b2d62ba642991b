package remotes

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// Frontier returns the shallow oids a deepening fetch starts from: the
// parents and causes of stored events that are on the shallow boundary,
// and the tips on it of runs that store none (a fetch of depth 0). A
// depth-limited fetch also lists a run's other events there (they are
// links the fetch left out), but deepening from all of them would bring
// the whole run at once; from the frontier, `fetch --deepen N` adds N
// generations.
func Frontier(ctx context.Context, r *plumbing.Repo) ([]objects.OID, error) {
	shallow, err := r.ShallowSet()
	if err != nil || len(shallow) == 0 {
		return nil, err
	}
	seen := map[objects.OID]bool{}
	front := map[objects.OID]bool{}
	err = r.Refs().List(ctx, "", func(_ string, id objects.OID) error {
		if id.Type != objects.TypeRun || seen[id] {
			return nil
		}
		seen[id] = true
		run, err := r.Objects().Get(ctx, id)
		if errors.Is(err, objects.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		// A fetch of depth 0 stores no event: the run's tips on the
		// boundary are the first generation to bring.
		tips, _ := run.Value.Get("tips")
		for _, e := range tips.Array {
			if tip, err := objects.ParseOIDFor(r.Algo(), e.Str); err == nil && shallow[tip] {
				front[tip] = true
			}
		}
		events, _ := run.Value.Get("events")
		for _, e := range events.Array {
			ev, err := objects.ParseOIDFor(r.Algo(), e.Str)
			if err != nil || seen[ev] || shallow[ev] {
				continue
			}
			seen[ev] = true
			o, err := r.Objects().Get(ctx, ev)
			if errors.Is(err, objects.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			links, err := objects.Links(o)
			if err != nil {
				return err
			}
			for _, l := range links {
				if shallow[l] {
					front[l] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("shallow frontier: %w", err)
	}
	out := make([]objects.OID, 0, len(front))
	for id := range front {
		out = append(out, id)
	}
	slices.SortFunc(out, objects.OID.Compare)
	return out, nil
}
