package httpserve

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// walkResult is what a fetch or negotiation sends: the objects of the walk
// minus the haves, and the runs whose associations were left out.
type walkResult struct {
	set     *plumbing.TransferSet
	src     plumbing.TransferSource
	ids     []objects.OID
	omitted int
}

// walk is spec §7 steps 1–4 over the tenant's repository: the transfer
// closure of the wants the tenant holds (absent ones are skipped), with
// the runs' associations when everything fits in lim.Objects objects,
// else without them (each run that had some is then counted as omitted),
// minus the literal haves (haves are not expanded by reachability,
// spec §14.1). A walk past the bound without associations is refused.
// With closure (tine's extension, wire.HeaderHaves) the haves are closure
// roots: the walk stops at what their closures hold (a held want is
// walked through for its new associations, not sent).
func walk(ctx context.Context, r *plumbing.Repo, wants, haves []objects.OID, depth int, lim objects.PackLimits, closure bool) (*walkResult, *httpError) {
	src, err := plumbing.RepoTransferSource(ctx, r)
	if err != nil {
		return nil, internal(err.Error())
	}
	var has func(context.Context, objects.OID) (bool, error)
	if closure {
		var herr *httpError
		if has, herr = heldBy(ctx, src, haves); herr != nil {
			return nil, herr
		}
	}
	var present []objects.OID
	for _, id := range wants {
		ok, err := src.Has(ctx, id)
		if err != nil {
			return nil, internal(err.Error())
		}
		if ok {
			present = append(present, id)
		}
	}
	res := &walkResult{src: src}
	if len(present) == 0 {
		return res, nil
	}
	opt := plumbing.TransferOptions{Wants: present, Depth: depth, Has: has}
	set, err := plumbing.TransferClosure(ctx, src, opt)
	if err != nil {
		return nil, internal(err.Error())
	}
	if len(set.IDs) > lim.Objects {
		opt.NoAssociations = true
		if set, err = plumbing.TransferClosure(ctx, src, opt); err != nil {
			return nil, internal(err.Error())
		}
		if len(set.IDs) > lim.Objects {
			return nil, invalid(fmt.Sprintf("pack graph exceeds maximum object count (%d objects, at most %d)", len(set.IDs), lim.Objects))
		}
		for _, run := range set.Runs {
			as, err := src.Associations(ctx, run)
			if err != nil {
				return nil, internal(err.Error())
			}
			if len(as) > 0 {
				res.omitted++
			}
		}
	}
	res.set = set
	have := make(map[objects.OID]bool, len(haves))
	for _, h := range haves {
		have[h] = true
	}
	for _, id := range set.IDs {
		if !have[id] {
			res.ids = append(res.ids, id)
		}
	}
	return res, nil
}

// walkRequest decodes the shared keys of fetch and negotiate.
func (s *Server) walkRequest(c *call, allowed ...string) (map[string][]byte, []objects.OID, []objects.OID, int, *httpError) {
	body, herr := readObject(c.r, s.cfg.MaxBodyBytes, allowed...)
	if herr != nil {
		return nil, nil, nil, 0, herr
	}
	algo := s.cfg.ObjectFormat
	wants, herr := oidList(body["wants"], algo, "wants")
	if herr != nil {
		return nil, nil, nil, 0, herr
	}
	haves, herr := oidList(body["haves"], algo, "haves")
	if herr != nil {
		return nil, nil, nil, 0, herr
	}
	depth, herr := depthValue(body["depth"])
	if herr != nil {
		return nil, nil, nil, 0, herr
	}
	raw := make(map[string][]byte, len(body))
	for k, v := range body {
		raw[k] = v
	}
	return raw, wants, haves, depth, nil
}

// negotiate answers {"missing":[…]}: what a fetch of the same request
// would send, without the type filter or a pack (spec §5.4).
func (s *Server) negotiate(c *call) *httpError {
	_, wants, haves, depth, herr := s.walkRequest(c, "wants", "haves", "depth")
	if herr != nil {
		return herr
	}
	release, herr := slot(c.r.Context(), s.walkSlots)
	if herr != nil {
		return herr
	}
	defer release()
	missing := []string{}
	r, err := s.repo(c.tenant, false)
	if err != nil {
		return internal(err.Error())
	}
	if r != nil {
		res, herr := walk(c.r.Context(), r, wants, haves, depth, objects.DefaultPackLimits, false)
		if herr != nil {
			return herr
		}
		for _, id := range res.ids {
			missing = append(missing, id.String())
		}
		slices.Sort(missing)
	}
	writeJSON(c.w, http.StatusOK, map[string][]string{"missing": missing})
	return nil
}

// fetch answers a TINEPACK3 frame of the walk, type-filtered, with
// Opentine-Associations-Omitted when runs' associations did not fit
// (spec §5.5). Its shallow list is every link of a packed object outside
// the pack. A client asking for tine's binary frame gets one instead, of
// version 2 (storage blocks as stored, blockFrame) when it asks for that.
func (s *Server) fetch(c *call) *httpError {
	body, wants, haves, depth, herr := s.walkRequest(c, "wants", "haves", "depth", "object_types")
	if herr != nil {
		return herr
	}
	types, herr := objectTypes(body["object_types"])
	if herr != nil {
		return herr
	}
	lim, herr := s.packLimits(c.r)
	if herr != nil {
		return herr
	}
	closure, herr := s.havesClosure(c.r)
	if herr != nil {
		return herr
	}
	fc, herr := s.binaryFrame(c.r, false)
	if herr != nil {
		return herr
	}
	ctx := c.r.Context()
	release, herr := slot(ctx, s.packSlots)
	if herr != nil {
		return herr
	}
	defer release()
	r, err := s.repo(c.tenant, false)
	if err != nil {
		return internal(err.Error())
	}
	var res *walkResult
	var ids []objects.OID
	if r != nil {
		if res, herr = walk(ctx, r, wants, haves, depth, lim, closure); herr != nil {
			return herr
		}
		if ids, err = filterTypes(ctx, res, types); err != nil {
			return internal(err.Error())
		}
	}
	var frame []byte
	if fc.blocks {
		frame, herr = blockFrame(ctx, r, res, ids, lim, fc.compress)
	} else {
		frame, herr = objectFrame(ctx, res, ids, lim, fc)
	}
	if herr != nil {
		return herr
	}
	omitted := 0
	if res != nil {
		omitted = res.omitted
	}
	contentType := wire.PackContentType
	if fc.binary {
		contentType = wire.FrameContentType
	}
	writePack(c.w, contentType, frame, omitted)
	return nil
}

// objectFrame reads ids (none without a walk res) through the walk's
// cache and writes them as packFrame does.
func objectFrame(ctx context.Context, res *walkResult, ids []objects.OID, lim objects.PackLimits, fc frameChoice) ([]byte, *httpError) {
	var links *remote.SetLinks
	if res != nil {
		links = (*remote.SetLinks)(res.set)
	}
	objs, herr := readUncovered(ctx, res, ids, nil)
	if herr != nil {
		return nil, herr
	}
	return packFrame(links, objs, lim, fc)
}

// packFrame writes objs as a frame whose shallow list is their external
// links, within lim: tine's binary frame when fc asks for it, else
// TINEPACK3. The objects' links come from links, the walk that chose them.
func packFrame(links *remote.SetLinks, objs []*objects.Object, lim objects.PackLimits, fc frameChoice) ([]byte, *httpError) {
	boundary, err := links.External(objs)
	if err != nil {
		return nil, internal(err.Error())
	}
	if len(boundary) > lim.Shallow {
		return nil, invalid(fmt.Sprintf("pack would declare %d shallow ids, at most %d", len(boundary), lim.Shallow))
	}
	if fc.binary {
		frame, _, err := wire.WriteFrame(objs, boundary, lim, fc.compress)
		if err != nil {
			return nil, packError(err)
		}
		return frame, nil
	}
	frame, _, err := objects.WritePackLimits(objs, boundary, objects.PackLevelFast, lim)
	if err != nil {
		return nil, packError(err)
	}
	return frame, nil
}
