package httpclient

import (
	"bytes"
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/remote"
)

// heldBack keeps, during a full fetch under tine's extension, the runs that
// arrived and every object linking to one (attestations and annotations
// naming it, annotation chains on those), to install them after the
// events they name. Objects with no link to a run install as their frames
// arrive, as without the extension.
//
// Objects installed this way are handed to the sink with a boundary the
// client computes (their links outside the batch), so the server's word
// bounds it: only ids some frame of the fetch declared shallow
// (declared) may be on it, and anything else they link to must be stored
// already, or the sink refuses the batch. A server leaving objects out
// without declaring them thus fails the fetch instead of leaving a
// shallow clone.
type heldBack struct {
	ids  map[objects.OID]bool
	objs []*objects.Object
	// blocks are the raw blocks holding held objects only.
	blocks []pack.RawBlock
	// declared are the shallow ids of the fetch's frames.
	declared map[objects.OID]bool
}

func newHeldBack() *heldBack {
	return &heldBack{ids: map[objects.OID]bool{}, declared: map[objects.OID]bool{}}
}

// declare checks that every shallow id of frame pf is a link of one of
// its objects and not one of them, as a sink checks a declared boundary,
// and records them as declared.
func (h *heldBack) declare(pf *objects.PackFrame, memo remote.LinkMemo) error {
	ext, err := memo.External(pf.Objects)
	if err != nil {
		return err
	}
	linked := make(map[objects.OID]bool, len(ext))
	for _, id := range ext {
		linked[id] = true
	}
	for _, id := range pf.Shallow {
		if !linked[id] {
			return fmt.Errorf("declared boundary %s is not a link of the received objects: %w", id, remote.ErrIncomplete)
		}
		h.declared[id] = true
	}
	return nil
}

// split moves the frame's runs, and the objects linking to a held object,
// into h, and returns the rest in frame order.
func (h *heldBack) split(objs []*objects.Object, memo remote.LinkMemo) ([]*objects.Object, error) {
	// memo holds every object's links after this loop (a nil memo, which
	// keeps nothing, gets a map of its own).
	if memo == nil {
		memo = remote.LinkMemo{}
	}
	for _, o := range objs {
		if _, err := memo.Links(o); err != nil {
			return nil, err
		}
		if o.Type == objects.TypeRun {
			h.ids[o.ID] = true
		}
	}
	links := memo
	// An association may name another frame object that names a run, so
	// repeat until no object joins; each pass but the last adds one.
	for changed := true; changed; {
		changed = false
		for _, o := range objs {
			if h.ids[o.ID] {
				continue
			}
			for _, l := range links[o.ID] {
				if h.ids[l] {
					h.ids[o.ID] = true
					changed = true
					break
				}
			}
		}
	}
	rest := make([]*objects.Object, 0, len(objs))
	for _, o := range objs {
		if h.ids[o.ID] {
			h.objs = append(h.objs, o)
		} else {
			rest = append(rest, o)
		}
	}
	return rest, nil
}

// splitBlocks keeps in h the blocks of a frame whose objects split has
// all held, and returns those holding none of them; a block holding both
// is returned by neither, its objects stored one by one. A kept block's
// payload is copied out of the frame, so the frame is not held in memory
// to the end of the fetch for it.
func (h *heldBack) splitBlocks(blocks []pack.RawBlock) []pack.RawBlock {
	var rest []pack.RawBlock
	for _, b := range blocks {
		held := 0
		for _, id := range b.IDs {
			if h.ids[id] {
				held++
			}
		}
		switch held {
		case len(b.IDs):
			b.Payload = bytes.Clone(b.Payload)
			h.blocks = append(h.blocks, b)
		case 0:
			rest = append(rest, b)
		}
	}
	return rest
}

// lacking returns the links of the held objects that are neither held nor
// in frame pf nor in the sink, at most maxRoundWants: what the fetch must
// still bring before the held objects install. Frame pf is not stored yet
// when this is asked.
func (h *heldBack) lacking(ctx context.Context, sink remote.Sink, pf *objects.PackFrame, memo remote.LinkMemo) ([]objects.OID, error) {
	inFrame := make(map[objects.OID]bool, len(pf.Objects))
	for _, o := range pf.Objects {
		inFrame[o.ID] = true
	}
	ext, err := memo.External(h.objs)
	if err != nil {
		return nil, err
	}
	var cand []objects.OID
	for _, id := range ext {
		if !inFrame[id] {
			cand = append(cand, id)
		}
	}
	return lacking(ctx, sink, cand)
}

// installObjects hands objs to the sink link targets first, their links
// outside objs that a frame declared shallow (h.declared) as the boundary
// (the sink records the ids it lacks, and refuses any other link it does
// not hold), with the raw blocks holding some of them.
func (h *heldBack) installObjects(ctx context.Context, sink remote.Sink, what string, objs []*objects.Object, blocks []pack.RawBlock, memo remote.LinkMemo) error {
	if len(objs) == 0 {
		return nil
	}
	ordered, err := objects.DependencyOrderWith(objs, memo.Links)
	if err != nil {
		return fmt.Errorf("fetch: pack %s: %w", what, err)
	}
	ext, err := memo.External(objs)
	if err != nil {
		return fmt.Errorf("fetch: pack %s: %w", what, err)
	}
	boundary := make([]objects.OID, 0, len(ext))
	for _, id := range ext {
		if h.declared[id] {
			boundary = append(boundary, id)
		}
	}
	if err := installDecoded(ctx, sink, ordered, boundary, blocks); err != nil {
		return fmt.Errorf("fetch: pack %s: %w", what, err)
	}
	return nil
}
