package httpclient

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// blockBatches cuts req.Set into batches of lim.Objects objects, as
// remote.Batches does, for a server reading version 2 frames: each
// batch's objects that fill storage blocks of the source (bs.RawBlocks)
// travel in those blocks as they are stored, compressed once when they
// were written, and the rest as envelopes, in one wire.WriteFrameBlocks
// frame handed to queue. The source does not read the blocked objects
// again (the walk behind the set read and hashed each once), and the
// server does not compress them again. A batch whose objects exceed
// maxPackEnvelopeBytes goes to cut, read whole, as before.
func blockBatches(ctx context.Context, req remote.PushRequest, bs remote.BlockSource, lim objects.PackLimits, compress bool,
	queue func(frame []byte, id string, n int) error, cut func([]*objects.Object) error) error {
	set := req.Set
	for start := 0; start < len(set.IDs); start += lim.Objects {
		ids := set.IDs[start:min(start+lim.Objects, len(set.IDs))]
		blocks, covered, err := bs.RawBlocks(ctx, ids)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		size := 0
		for _, b := range blocks {
			size += int(b.RawLen)
		}
		objs := make([]*objects.Object, 0, len(ids))
		for i, id := range ids {
			if covered[i] {
				continue
			}
			o, err := set.Object(ctx, req.Source, id)
			if err != nil {
				return fmt.Errorf("read %s: %w", id, err)
			}
			objs = append(objs, o)
			size += storedLen(o)
		}
		if size > maxPackEnvelopeBytes {
			if objs, err = readAll(ctx, req, ids); err == nil {
				err = cut(objs)
			}
			if err != nil {
				return err
			}
			continue
		}
		boundary, err := (*remote.SetLinks)(set).ExternalOf(ctx, req.Source, ids)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		frame, id, err := wire.WriteFrameBlocks(blocks, objs, boundary, lim, compress)
		if err != nil {
			return fmt.Errorf("push: %w", err)
		}
		if err := queue(frame, id, len(ids)); err != nil {
			return err
		}
	}
	return nil
}

// readAll reads ids through the set's cache and req.Source.
func readAll(ctx context.Context, req remote.PushRequest, ids []objects.OID) ([]*objects.Object, error) {
	objs := make([]*objects.Object, 0, len(ids))
	for _, id := range ids {
		o, err := req.Set.Object(ctx, req.Source, id)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", id, err)
		}
		objs = append(objs, o)
	}
	return objs, nil
}
