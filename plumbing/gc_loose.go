package plumbing

import (
	"fmt"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// GCPhaseWriteBack writes packed objects back out as loose files (a sha256
// repository without storage packs).
const GCPhaseWriteBack = "writing loose"

// runLoose is gc in a repository that keeps every object loose (a sha256
// repository that has not opted into storage packs, Repo.StoragePacks):
// nothing is packed; the objects of any storage pack (left by an older
// tine, or by the repository before it opted out) are written back out as
// loose files and the packs removed; with Prune, unreachable loose objects
// older than the prune age are deleted exactly as gc does elsewhere.
func (g *gcRun) runLoose() error {
	if err := g.writeBack(); err != nil {
		return err
	}
	if err := g.listLoose(); err != nil {
		return err
	}
	if g.opt.Prune {
		// No pack is left, so planPrune finds nothing packed and
		// disposition only ever keeps or drops a loose file.
		if err := g.planPrune(); err != nil {
			return err
		}
		for _, id := range g.loose {
			switch g.disposition(id) {
			case gcDrop:
				g.removeLoose = append(g.removeLoose, id)
				g.res.Pruned++
			case gcKeepLoose:
				g.res.KeptYoung++
			}
		}
		if err := g.remove(); err != nil {
			return err
		}
	}
	return g.countPacks()
}

// writeBack writes every object of every storage pack out as a loose file
// and removes the packs. Crash safety as in GC: the packs are removed (the
// pack file, then its index, then the directory fsynced: pack.Store.RemovePack) only
// after each of their objects has been written loose durably (LooseStore.PutBatch: temp file,
// fsync, rename, directory fsync) and read back from that file and
// re-hashed. A crash leaves every object loose or still packed, and the
// next gc finishes the work. An object whose only copy is damaged stops
// gc, naming it, and its pack stays.
func (g *gcRun) writeBack() error {
	if err := g.r.packs.Reload(); err != nil {
		return err
	}
	names, err := g.r.packs.Packs()
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return nil
	}
	dir := g.r.packs.Dir()
	// Every pack is written back before any is removed: a run an append
	// stored as a delta may have its base in another pack.
	for i, name := range names {
		g.report(GCPhaseWriteBack, i, len(names))
		if err := g.writeBackPack(name); err != nil {
			return err
		}
	}
	for _, name := range names {
		if err := g.r.packs.RemovePack(name); err != nil {
			return err
		}
		g.res.PacksRemoved = append(g.res.PacksRemoved, name)
	}
	g.report(GCPhaseWriteBack, len(names), len(names))
	if err := fsutil.SyncDir(dir); err != nil {
		return err
	}
	return g.r.packs.Reload()
}

// writeBackPack writes the objects of one pack loose, in batches of
// DefaultBulkObjects objects or DefaultBulkBytes bytes (one round of
// fsyncs each), and reads each back.
func (g *gcRun) writeBackPack(name string) error {
	var batch []*objects.Object
	var size int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := g.r.loose.PutBatch(g.ctx, batch); err != nil {
			return fmt.Errorf("write back %s: %w", name, err)
		}
		for _, o := range batch {
			if _, err := g.r.loose.Get(g.ctx, o.ID); err != nil {
				return fmt.Errorf("write back %s: object %s does not read back, the pack was kept: %w", name, o.ID, err)
			}
		}
		batch, size = batch[:0], 0
		return nil
	}
	err := g.r.packs.Walk(g.ctx, name, func(id objects.OID, o *objects.Object, rerr error) error {
		had, err := g.r.loose.Has(g.ctx, id)
		if err != nil {
			return err
		}
		if !had {
			g.res.LooseWritten++
		}
		if rerr != nil {
			// This copy is damaged: a sound loose copy, or one in another
			// pack, will do; otherwise the pack must stay.
			if o, err = g.r.Objects().Get(g.ctx, id); err != nil {
				return fmt.Errorf("object %s is damaged in storage pack %s and has no sound copy; the pack was kept (tine verify-pack %s): %w", id, name, name, rerr)
			}
		}
		batch = append(batch, o)
		size += int64(len(o.Body))
		if len(batch) >= DefaultBulkObjects || size >= DefaultBulkBytes {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
