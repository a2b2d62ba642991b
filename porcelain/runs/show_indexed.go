package runs

import (
	"context"
	"encoding/json"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// showIndexedRun is Show of stored run id without its entries, the
// totals taken from the history index (indexing the run first when it
// is missing, as log does): the run object is read for its payload, no
// event is. The sums are the index's, added in the run's order as Totals
// adds them; a run the index does not hold (events not stored here)
// has ok false, and the caller reads the events.
func showIndexedRun(ctx context.Context, r *plumbing.Repo, id objects.OID, ref string) (*ShowResult, bool, error) {
	h := useHistory(r)
	if h == nil {
		return nil, false, nil
	}
	defer h.Close()
	hr, err := indexedRun(ctx, r.Objects(), h, id)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	sums, err := h.Sums(hr)
	if err != nil {
		historyFailed(r, err)
		return nil, false, nil
	}
	run, err := readRun(ctx, r.Objects(), id)
	if err != nil {
		return nil, true, err
	}
	t := Totals{Events: hr.Len, Cost: sums.Cost, Duration: sums.Duration, Tokens: sums.Tokens}
	return &ShowResult{OID: id.String(), Type: objects.TypeRun, Ref: ref, Stored: run.Stored,
		Payload: json.RawMessage(run.Object.Body), Size: len(run.Object.Body), Totals: &t, Run: run}, true, nil
}
