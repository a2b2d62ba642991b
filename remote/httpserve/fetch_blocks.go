package httpserve

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// blockFrame writes the version 2 reply of a fetch (the client asked with
// wire.HeaderFrame: wire.FrameBlocksHeaderValue) carrying ids, objects of
// the walk res over r (both nil for an absent tenant: an empty frame).
// The ids that fill storage blocks of r's packs travel in those blocks
// as they are stored (pack.Store.RawBlocks), so the server decodes none
// of them and the client, which verifies every object of a block, writes
// the block into its own pack without compressing the objects again. The
// rest travel as envelopes, read as a version 1 reply reads them:
//
//   - a block that also holds an object not sent (one the client has, or
//     one the type filter left out) would make the client store or at
//     least decode what it did not ask for, so its sent objects go one by
//     one;
//   - a run delta block needs its base to decode, which the client may
//     not have, and a block read as a stream is larger than a store reads
//     whole: RawBlocks leaves both out, and their objects (one run
//     object per run, or one large object) go as envelopes;
//   - loose objects have no block.
//
// The shallow list is every link of a sent object outside the reply,
// from the walk's parsed links, as in packFrame. A reply whose blocks,
// counted decoded beside the body (the reader's bound), would pass
// objects.MaxPackBodyBytes goes without blocks.
func blockFrame(ctx context.Context, r *plumbing.Repo, res *walkResult, ids []objects.OID, lim objects.PackLimits, compress bool) ([]byte, *httpError) {
	if r == nil || len(ids) == 0 {
		frame, _, err := wire.WriteFrameBlocks(nil, nil, nil, lim, compress)
		if err != nil {
			return nil, packError(err)
		}
		return frame, nil
	}
	boundary, err := (*remote.SetLinks)(res.set).ExternalOf(ctx, res.src, ids)
	if err != nil {
		return nil, internal(err.Error())
	}
	if len(boundary) > lim.Shallow {
		return nil, invalid(fmt.Sprintf("pack would declare %d shallow ids, at most %d", len(boundary), lim.Shallow))
	}
	var blocks []pack.RawBlock
	covered := make([]bool, len(ids))
	if bs, ok := plumbing.TransferReader(r).(remote.BlockSource); ok {
		if blocks, covered, err = bs.RawBlocks(ctx, ids); err != nil {
			return nil, internal(err.Error())
		}
	}
	objs, herr := readUncovered(ctx, res, ids, covered)
	if herr != nil {
		return nil, herr
	}
	frame, _, err := wire.WriteFrameBlocks(blocks, objs, boundary, lim, compress)
	if errors.Is(err, wire.ErrBadFrame) && len(blocks) > 0 {
		// Over a bound with the blocks counted decoded: the objects
		// alone, as version 1 would send them.
		if objs, herr = readUncovered(ctx, res, ids, nil); herr != nil {
			return nil, herr
		}
		frame, _, err = wire.WriteFrameBlocks(nil, objs, boundary, lim, compress)
	}
	if err != nil {
		return nil, packError(err)
	}
	return frame, nil
}

// readUncovered reads, through the walk's cache, the ids not covered
// (every id when covered is nil).
func readUncovered(ctx context.Context, res *walkResult, ids []objects.OID, covered []bool) ([]*objects.Object, *httpError) {
	objs := make([]*objects.Object, 0, len(ids))
	for i, id := range ids {
		if covered != nil && covered[i] {
			continue
		}
		o, err := res.set.Object(ctx, res.src, id)
		if err != nil {
			return nil, internal(err.Error())
		}
		objs = append(objs, o)
	}
	return objs, nil
}
