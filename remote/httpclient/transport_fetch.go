package httpclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// firstWindow is the depth window of a full fetch's first round: a history
// shorter than that arrives in one round; each refusal by the server (a
// walk past wire.MaxListIDs objects) halves it.
const firstWindow = 4096

// maxRoundWants bounds the wants of one windowed round.
const maxRoundWants = 1024

// Fetch brings req's closure into sink. The server walks at most
// wire.MaxListIDs objects per request, so a full fetch (req.Depth is
// remote.NoDepth) proceeds in rounds: a depth window from the wants, then
// from the frontier of what arrived (the parents it links to and the sink
// lacks), window after window, until nothing is missing; a window the
// server refuses is halved. Asking for a window from the start spares a
// large history the whole walk the server would refuse, and costs a short
// one nothing (it arrives in the first round). Each round's frame is
// verified and handed to the sink link targets first, its shallow list
// being the boundary the sink records (and later rounds fill). A
// depth-limited fetch is one request.
func (t *Transport) Fetch(ctx context.Context, req remote.FetchRequest, sink remote.Sink) (*remote.FetchResult, error) {
	a := sink.Algo()
	if err := t.requireAlgo(ctx, a); err != nil {
		return nil, err
	}
	res := &remote.FetchResult{}
	haves := req.Haves
	if len(haves) > wire.MaxListIDs {
		haves = haves[:wire.MaxListIDs]
	}
	wants, depth := req.Wants, req.Depth
	windowed := req.Depth == remote.NoDepth
	if windowed {
		depth = firstWindow
	}
	for len(wants) > 0 {
		frame, omitted, err := t.c.Fetch(ctx, FetchRequest{Wants: wants, Haves: haves, Depth: depth})
		if errors.Is(err, ErrInvalid) && windowed && depth > 1 {
			// The walk was over the server's bound: narrow the window.
			depth /= 2
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fetch: %w", mapError(err))
		}
		res.Bytes += int64(len(frame))
		res.AssociationsOmitted += omitted
		pf, err := objects.InspectPack(frame, a)
		if err != nil {
			return nil, fmt.Errorf("fetch: %w: %w", remote.ErrIncomplete, err)
		}
		n, next, err := t.install(ctx, sink, pf)
		if err != nil {
			return nil, err
		}
		res.Objects += len(pf.Objects)
		if !windowed {
			break
		}
		if n == 0 && len(next) > 0 {
			return nil, fmt.Errorf("fetch: %w: a round brought nothing new, %d objects still missing", remote.ErrIncomplete, len(next))
		}
		wants = next
	}
	return res, nil
}

// install hands a verified frame to the sink, link targets first, with the
// shallow ids the sink lacks as its boundary. It returns how many objects
// the sink lacked and the next round's wants: the missing boundary ids
// linked from events, attestations or annotations of the frame (the
// frontier), else any missing boundary ids, at most maxRoundWants.
func (t *Transport) install(ctx context.Context, sink remote.Sink, pf *objects.PackFrame) (int, []objects.OID, error) {
	fresh := 0
	for _, o := range pf.Objects {
		has, err := sink.Has(ctx, o.ID)
		if err != nil {
			return 0, nil, err
		}
		if !has {
			fresh++
		}
	}
	var missing []objects.OID
	isMissing := map[objects.OID]bool{}
	for _, id := range pf.Shallow {
		has, err := sink.Has(ctx, id)
		if err != nil {
			return 0, nil, err
		}
		if !has {
			missing = append(missing, id)
			isMissing[id] = true
		}
	}
	ordered, err := objects.DependencyOrder(pf.Objects)
	if err != nil {
		return 0, nil, fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
	}
	if err := sink.Install(ctx, ordered, missing); err != nil {
		return 0, nil, fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
	}
	var frontier []objects.OID
	seen := map[objects.OID]bool{}
	for _, o := range pf.Objects {
		if o.Type == objects.TypeRun || o.Type == objects.TypeBlob {
			continue
		}
		links, err := objects.Links(o)
		if err != nil {
			return 0, nil, err
		}
		for _, l := range links {
			if isMissing[l] && !seen[l] {
				seen[l] = true
				frontier = append(frontier, l)
			}
		}
	}
	if len(frontier) == 0 {
		frontier = missing
	}
	if len(frontier) > maxRoundWants {
		frontier = frontier[:maxRoundWants]
	}
	return fresh, frontier, nil
}
