package httpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// Negotiate posts POST …/negotiate (spec §5.4) and returns what a fetch of
// wants would send a client holding haves: the server's walk from wants
// (cut at depth, none when negative; absent wants skipped) plus the runs'
// associations, minus haves.
func (c *Client) Negotiate(ctx context.Context, wants, haves []objects.OID, depth int) ([]objects.OID, error) {
	if len(wants) > wire.MaxListIDs || len(haves) > wire.MaxListIDs {
		return nil, fmt.Errorf("negotiate: at most %d wants and haves", wire.MaxListIDs)
	}
	body := map[string]any{"wants": oidStrings(wants), "haves": oidStrings(haves), "depth": nil}
	if depth >= 0 {
		body["depth"] = depth
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req := request{method: http.MethodPost, path: c.tenantPath("negotiate"), body: b, contentType: wire.JSONContentType}
	_, m, err := c.exchange(ctx, req, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var raw []string
	if err := json.Unmarshal(m["missing"], &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("%w: missing is not a list of strings", ErrProtocol)
	}
	out := make([]objects.OID, len(raw))
	for i, v := range raw {
		if out[i], err = objects.ParseOID(v); err != nil {
			return nil, fmt.Errorf("%w: negotiate reply: %w", ErrProtocol, err)
		}
	}
	return out, nil
}

// Held asks the server which of ids its tenant stores: a negotiate from
// ids with depth 0 and no haves walks every want the tenant holds (and
// skips the others), so a want is stored exactly when the reply names it.
// Depth 0 keeps the walk off events; the reply also names what the ids
// link to, which is ignored. One request per heldBatch ids.
func (t *Transport) Held(ctx context.Context, ids []objects.OID) ([]objects.OID, error) {
	var held []objects.OID
	for len(ids) > 0 {
		n := min(len(ids), heldBatch)
		batch := ids[:n]
		ids = ids[n:]
		walked, err := t.c.Negotiate(ctx, batch, nil, 0)
		if err != nil {
			return nil, mapError(err)
		}
		in := make(map[objects.OID]bool, len(walked))
		for _, id := range walked {
			in[id] = true
		}
		for _, id := range batch {
			if in[id] {
				held = append(held, id)
			}
		}
	}
	return held, nil
}

// heldBatch is how many ids one Held request asks about: the walk from
// them (each with its links and its run's associations) must stay within
// the server's 10,000 objects.
const heldBatch = 1000

var _ remote.Holder = (*Transport)(nil)
