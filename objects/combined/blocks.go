package combined

import (
	"context"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// PutBatchBlocks is PutBatch for objects of which some arrived in the
// sender's storage blocks (a push between tine peers): objs holds every
// object to store, each verified by the caller, and blocks the raw blocks
// some of them came in (each block's objects among objs). A block whose
// objects are all new to the store (no loose file, in no pack) is written
// as it is (pack.Writer.AddBlock), sparing its compression; the objects of
// any other block are stored as PutBatch stores them. Batches PutBatch
// would write loose are written loose, blocks and all, and so are the
// objects left when no block is kept and too few remain for a pack.
func (c *Store) PutBatchBlocks(ctx context.Context, objs []*objects.Object, blocks []pack.RawBlock) error {
	if len(blocks) == 0 || len(objs) < c.minPackBatch {
		return c.PutBatch(ctx, objs)
	}
	ids := make([]objects.OID, len(objs))
	byID := make(map[objects.OID]int, len(objs))
	for i, o := range objs {
		if err := objects.CheckPut(c.Algo(), o); err != nil {
			return err
		}
		ids[i] = o.ID
		byID[o.ID] = i
	}
	inLoose, err := c.loose.MayHold(ctx, ids)
	if err != nil {
		return err
	}
	inRaw := make([]bool, len(objs))
	var raw []pack.RawBlock
	for _, b := range blocks {
		if c.blockNew(ctx, b, byID, inLoose, inRaw) {
			for _, id := range b.IDs {
				inRaw[byID[id]] = true
			}
			raw = append(raw, b)
		}
	}
	var loose, packed []*objects.Object
	for i, o := range objs {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case inRaw[i]:
		case inLoose[i]:
			loose = append(loose, o)
		case !c.packSound(ctx, o): // no loose file: checked just above
			packed = append(packed, o)
		}
	}
	if len(raw) == 0 && len(packed) < c.minPackBatch {
		return c.loose.PutBatch(ctx, append(loose, packed...))
	}
	if err := c.loose.PutBatch(ctx, loose); err != nil {
		return err
	}
	_, err = c.packs.WritePackBlocks(ctx, raw, packed, pack.Options{})
	return err
}

// blockNew reports whether every object of b is among objs (byID), not
// yet in a block taken (inRaw), without a loose file (inLoose) and in no
// pack.
func (c *Store) blockNew(ctx context.Context, b pack.RawBlock, byID map[objects.OID]int, inLoose, inRaw []bool) bool {
	for _, id := range b.IDs {
		i, ok := byID[id]
		if !ok || inLoose[i] || inRaw[i] {
			return false
		}
		if held, err := c.packs.Has(ctx, id); held || err != nil {
			return false
		}
	}
	return true
}
