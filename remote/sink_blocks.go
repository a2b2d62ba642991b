package remote

import (
	"context"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/plumbing"
)

// BlockSink is a ReadSink that can also keep, as they are, the storage
// blocks some of a batch's objects arrived in (the HTTP transport's fetch
// of a version 2 frame, wire.ReadFrameBlocks): a block whose every object
// it stores anew is written into its pack without compressing the objects
// again. InstallBlocks verifies the batch as InstallRead does; the caller
// vouches, as for InstallRead, that each object's oid was derived from its
// bytes in this process, and that each block decodes to exactly the
// envelopes of its IDs (pack.DecodeRawBlock, each id derived from its
// envelope), which wire.ReadFrameBlocks checks before it returns a block.
// A block naming an object outside objs is not kept: its objects are
// stored one by one.
type BlockSink interface {
	ReadSink
	InstallBlocks(ctx context.Context, objs []*objects.Object, boundary []objects.OID, blocks []pack.RawBlock) error
}

// blockPutter is a store that writes raw blocks as they are
// (combined.Store.PutBatchBlocks, under plumbing's writers' lock).
type blockPutter interface {
	PutBatchBlocks(ctx context.Context, objs []*objects.Object, blocks []pack.RawBlock) error
}

// InstallBlocks verifies and stores one batch of objects decoded from a
// verified frame, keeping the raw blocks they came in where the store can
// (see BlockSink).
func (s *RepoSink) InstallBlocks(ctx context.Context, objs []*objects.Object, boundary []objects.OID, blocks []pack.RawBlock) error {
	return s.install(ctx, objs, boundary, blocks, false)
}

// write stores a verified batch as one durable batch: through the
// store's PutBatchBlocks when there are blocks and it keeps them (one
// storage pack, committed whole), else through a plumbing.BulkWriter,
// then merges small storage packs when they have piled up
// (plumbing.Repo.MergeSmallPacks).
func (s *RepoSink) write(ctx context.Context, objs []*objects.Object, blocks []pack.RawBlock) error {
	store := s.r.Objects()
	if bp, ok := store.(blockPutter); ok && len(blocks) > 0 {
		if err := bp.PutBatchBlocks(ctx, objs, blocks); err != nil {
			return err
		}
		return s.r.MergeSmallPacks(ctx)
	}
	w := plumbing.NewBulkWriter(ctx, store, plumbing.BulkOptions{MaxObjects: len(objs) + 1, MaxBytes: 1 << 62})
	for _, o := range objs {
		if _, err := w.Add(o); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	// A transfer stored in many batches writes a pack each; merge the
	// small ones as appends do, so reads search a few packs.
	return s.r.MergeSmallPacks(ctx)
}
