package httpclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// firstWindow is the depth window of a full fetch's first round: a history
// shorter than that arrives in one round; each refusal by the server (a
// walk past wire.MaxListIDs objects) halves it.
const firstWindow = 4096

// firstWindowFor scales firstWindow to the objects a frame may carry
// within lim: under tine's extension (50,000 objects a frame) a history
// of 20,000 events with a blob each arrives in one round, not five, each
// round costing the server a walk and the client a durable install. A
// window past the server's bound is halved like any other.
func firstWindowFor(lim objects.PackLimits) int {
	return firstWindow * max(1, lim.Objects/objects.MaxPackObjects)
}

// maxRoundWants bounds the wants of one windowed round.
const maxRoundWants = 1024

// Fetch brings req's closure into sink. The server walks at most
// wire.MaxListIDs objects per request, so a full fetch (req.Depth is
// remote.NoDepth) proceeds in rounds: a depth window from the wants, then
// from the frontier of what arrived (the parents it links to and the sink
// lacks), window after window, until nothing is missing; a window the
// server refuses is halved. Asking for a window from the start spares a
// large history the whole walk the server would refuse, and costs a short
// one nothing (it arrives in the first round). The frontier is known once
// a frame is verified, so the next round's request is sent before the
// sink stores the current one: the server walks while the client writes.
// Each round's frame is handed to the sink link targets first, its
// shallow list being the boundary the sink records (and later rounds
// fill). A depth-limited fetch is one request.
//
// The server chose what a reply carries: before anything of it reaches
// the sink, remote.Scope checks that every object is within what the
// fetch asked for (the closure of the wants with their associations),
// and a reply carrying anything else fails the fetch (remote.ErrNotAsked).
//
// Under tine's extension a full fetch holds runs back (see heldBack): a
// run names every one of its events, so installed early it would leave
// the sink a boundary of every event not yet arrived, past the shallow
// file's bound for a large run; held to the end, it installs once its
// events are stored.
func (t *Transport) Fetch(ctx context.Context, req remote.FetchRequest, sink remote.Sink) (*remote.FetchResult, error) {
	a := sink.Algo()
	if err := t.requireAlgo(ctx, a); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := &remote.FetchResult{}
	haves, closure := req.Haves, false
	if len(req.HaveRoots) > 0 && t.c.HaveClosure() {
		haves, closure = req.HaveRoots, true
	}
	if len(haves) > wire.MaxListIDs {
		haves = haves[:wire.MaxListIDs]
	}
	wants, depth := req.Wants, req.Depth
	windowed := req.Depth == remote.NoDepth
	if windowed {
		depth = firstWindowFor(t.c.Limits())
	}
	binary, blocks := t.c.BinaryFrames(), t.c.FetchBlocks()
	ask := func(wants []objects.OID, depth int) <-chan fetchReply {
		ch := make(chan fetchReply, 1)
		go func() {
			frame, omitted, err := t.c.Fetch(ctx, FetchRequest{Wants: wants, Haves: haves, Depth: depth, Binary: binary, Blocks: blocks, HavesClosure: closure})
			ch <- fetchReply{frame: frame, omitted: omitted, err: err}
		}()
		return ch
	}
	lim := t.c.Limits()
	memo := remote.LinkMemo{}
	if ls, ok := sink.(interface{ Links() remote.LinkMemo }); ok {
		memo = ls.Links() // parsed once, here or by the sink's checks
	}
	var hb *heldBack
	if windowed && t.c.Extended() {
		hb = newHeldBack()
	}
	var local objects.Getter
	if ls, ok := sink.(interface{ Local() objects.Getter }); ok {
		local = ls.Local()
	}
	scope := remote.NewScope(req.Wants, local)
	asked := map[objects.OID]bool{}
	var pending <-chan fetchReply
	if len(wants) > 0 {
		pending = ask(wants, depth)
	}
	for pending != nil {
		r := <-pending
		pending = nil
		if errors.Is(r.err, ErrInvalid) && windowed && depth > 1 {
			// The walk was over the server's bound: narrow the window.
			depth /= 2
			pending = ask(wants, depth)
			continue
		}
		if r.err != nil {
			return nil, fmt.Errorf("fetch: %w", mapError(r.err))
		}
		for _, id := range wants {
			asked[id] = true
		}
		res.Bytes += int64(len(r.frame))
		res.AssociationsOmitted += r.omitted
		pf, raw, err := readFrame(r.frame, a, lim)
		if err != nil {
			return nil, fmt.Errorf("fetch: %w: %w", remote.ErrIncomplete, err)
		}
		// The server chose these objects: nothing outside what was asked
		// for reaches the sink.
		if err := scope.Admit(ctx, pf.Objects, memo); err != nil {
			return nil, fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
		}
		rest := pf.Objects
		if hb != nil {
			if rest, err = hb.split(pf.Objects, memo); err != nil {
				return nil, fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
			}
			if err := hb.declare(pf, memo); err != nil {
				return nil, fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
			}
			raw = hb.splitBlocks(raw)
		}
		var next []objects.OID
		if windowed {
			if next, err = nextWants(ctx, sink, pf, memo); err != nil {
				return nil, err
			}
			if len(next) == 0 && hb != nil {
				if next, err = hb.lacking(ctx, sink, pf, memo); err != nil {
					return nil, err
				}
			}
			for _, id := range next {
				if asked[id] {
					return nil, fmt.Errorf("fetch: %w: %s was asked for and is still missing", remote.ErrIncomplete, id)
				}
			}
			if len(next) > 0 {
				pending = ask(next, depth)
			}
		}
		if hb != nil {
			err = hb.installObjects(ctx, sink, pf.ID, rest, raw, memo)
		} else {
			err = t.install(ctx, sink, pf, raw, memo)
		}
		if err != nil {
			return nil, err
		}
		res.Objects += len(pf.Objects)
		wants = next
	}
	if hb != nil {
		if err := hb.installObjects(ctx, sink, "of held-back runs", hb.objs, hb.blocks, memo); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// fetchReply is one fetch request's answer.
type fetchReply struct {
	frame   []byte
	omitted int
	err     error
}

// install hands a verified frame to the sink, link targets first, with its
// shallow list as the boundary (the sink records the ids it lacks) and the
// raw blocks it carried.
func (t *Transport) install(ctx context.Context, sink remote.Sink, pf *objects.PackFrame, blocks []pack.RawBlock, memo remote.LinkMemo) error {
	ordered, err := objects.DependencyOrderWith(pf.Objects, memo.Links)
	if err != nil {
		return fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
	}
	if err := installDecoded(ctx, sink, ordered, pf.Shallow, blocks); err != nil {
		return fmt.Errorf("fetch: pack %s: %w", pf.ID, err)
	}
	return nil
}

// nextWants returns the next round's wants after frame pf: the boundary
// ids linked from events, attestations or annotations of the frame (the
// frontier) that the sink lacks, else any boundary ids it lacks, at most
// maxRoundWants. Boundary ids are never in the frame, so the answer is the
// same before and after the sink stores it.
func nextWants(ctx context.Context, sink remote.Sink, pf *objects.PackFrame, memo remote.LinkMemo) ([]objects.OID, error) {
	boundary := make(map[objects.OID]bool, len(pf.Shallow))
	for _, id := range pf.Shallow {
		boundary[id] = true
	}
	var frontier []objects.OID
	seen := map[objects.OID]bool{}
	for _, o := range pf.Objects {
		if o.Type == objects.TypeRun || o.Type == objects.TypeBlob {
			continue
		}
		links, err := memo.Links(o)
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if boundary[l] && !seen[l] {
				seen[l] = true
				frontier = append(frontier, l)
			}
		}
	}
	next, err := lacking(ctx, sink, frontier)
	if err != nil || len(next) > 0 {
		return next, err
	}
	return lacking(ctx, sink, pf.Shallow)
}

// lacking returns the ids of ids the sink does not hold, at most
// maxRoundWants.
func lacking(ctx context.Context, sink remote.Sink, ids []objects.OID) ([]objects.OID, error) {
	var out []objects.OID
	for _, id := range ids {
		has, err := sink.Has(ctx, id)
		if err != nil {
			return nil, err
		}
		if !has {
			out = append(out, id)
			if len(out) == maxRoundWants {
				break
			}
		}
	}
	return out, nil
}

// readFrame verifies a fetched frame within lim: tine's binary frame of
// version 1 or 2 (the client asked for it, or Client.Fetch would have
// refused the reply), whose version 2 also returns its raw blocks, every
// object of each decoded and its id derived from its bytes, or
// TINEPACK3.
func readFrame(frame []byte, a objects.Algo, lim objects.PackLimits) (*objects.PackFrame, []pack.RawBlock, error) {
	switch {
	case wire.IsFrameBlocks(frame):
		return wire.ReadFrameBlocks(frame, a, lim)
	case wire.IsFrame(frame):
		pf, err := wire.ReadFrame(frame, a, lim)
		return pf, nil, err
	}
	pf, err := objects.InspectPackLimits(frame, a, lim)
	return pf, nil, err
}

// installDecoded hands the sink objects decoded from a verified frame.
// Both frame readers derive every oid from the object's bytes
// (objects.DecodeEnvelope) and refuse a frame naming another, so a sink
// that can take objects whose oid this process derived (remote.ReadSink)
// is spared hashing each a second time; it checks their links, run graph
// and chains all the same. The raw blocks a version 2 frame carried, each
// decoded by its reader to exactly its objects, go to a sink that keeps
// them (remote.BlockSink).
func installDecoded(ctx context.Context, sink remote.Sink, objs []*objects.Object, boundary []objects.OID, blocks []pack.RawBlock) error {
	if bs, ok := sink.(remote.BlockSink); ok && len(blocks) > 0 {
		return bs.InstallBlocks(ctx, objs, boundary, blocks)
	}
	if rs, ok := sink.(remote.ReadSink); ok {
		return rs.InstallRead(ctx, objs, boundary)
	}
	return sink.Install(ctx, objs, boundary)
}
