package plumbing

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// gcProgressEvery is how many objects pass between progress reports.
const gcProgressEvery = 4096

// streamIDs returns the objects gc considers, in enumeration order (SPEC
// §2.1): the loose objects it listed, merged with the old packs' objects
// when those are rewritten. Objects written after the listing are never
// touched.
func (g *gcRun) streamIDs() []objects.OID {
	if !g.consolidate {
		return g.loose
	}
	out := make([]objects.OID, 0, len(g.loose)+len(g.packList))
	a, b := g.loose, g.packList
	for len(a) > 0 && len(b) > 0 {
		switch c := enumCompare(a[0], b[0]); {
		case c < 0:
			out, a = append(out, a[0]), a[1:]
		case c > 0:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// enumCompare orders two oids of one profile by type name, then digest.
func enumCompare(a, b objects.OID) int {
	switch {
	case a.Type < b.Type:
		return -1
	case a.Type > b.Type:
		return 1
	}
	for i := range a.Digest {
		if a.Digest[i] != b.Digest[i] {
			return int(a.Digest[i]) - int(b.Digest[i])
		}
	}
	return 0
}

// writePacks streams the kept objects into the new pack (and unreachable
// young packed ones into a cruft pack), in enumeration order, so a later
// full read in that order decodes each block once. Memory is the writers'
// indexes and one object at a time.
func (g *gcRun) writePacks() (err error) {
	var main, cruft *objects.PackWriter
	defer func() {
		if err != nil {
			for _, w := range []*objects.PackWriter{main, cruft} {
				if w != nil {
					w.Abort()
				}
			}
		}
	}()
	ids := g.streamIDs()
	for i, id := range ids {
		if i%gcProgressEvery == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
			g.report(GCPhasePack, i, len(ids))
		}
		d := g.disposition(id)
		if g.looseSet[id] && d != gcKeepLoose {
			g.removeLoose = append(g.removeLoose, id)
		}
		var w **objects.PackWriter
		switch d {
		case gcToMain:
			w = &main
		case gcToCruft:
			w, g.res.KeptYoung = &cruft, g.res.KeptYoung+1
		case gcKeepLoose:
			g.res.KeptYoung++
			continue
		case gcDrop:
			g.res.Pruned++
			continue
		default:
			continue
		}
		if *w == nil {
			if *w, err = objects.NewPackWriter(g.r.packs.Dir(), g.r.algo, objects.PackOptions{}); err != nil {
				return err
			}
		}
		o, err := g.read(id)
		if err != nil {
			return err
		}
		if err := (*w).Add(o); err != nil {
			return err
		}
	}
	g.report(GCPhasePack, len(ids), len(ids))
	g.written = map[string]int{}
	if main != nil {
		n := main.Len()
		name, err := main.Commit()
		main = nil
		if err != nil {
			return fmt.Errorf("commit new pack: %w", err)
		}
		g.res.Pack, g.res.Objects, g.written[name] = name, n, n
	}
	if cruft != nil {
		n := cruft.Len()
		name, err := cruft.Commit()
		cruft = nil
		if err != nil {
			return fmt.Errorf("commit cruft pack: %w", err)
		}
		g.res.CruftPack, g.res.CruftObjects, g.written[name] = name, n, n
		// The cruft pack keeps the age of the packs its objects came from
		// (the youngest of them), so they expire on time. A crash before
		// this leaves it younger: pruning is delayed, never early.
		base := filepath.Join(g.r.packs.Dir(), name)
		for _, ext := range []string{".pack", ".idx"} {
			if err := os.Chtimes(base+ext, g.cruftTime, g.cruftTime); err != nil {
				return fmt.Errorf("date cruft pack: %w", err)
			}
		}
	}
	return nil
}

// read returns a verified copy of id: the loose one when gc listed it
// loose (a damaged loose copy stops gc: fsck must look at it first), else
// a packed one.
func (g *gcRun) read(id objects.OID) (*objects.Object, error) {
	if g.looseSet[id] {
		o, err := g.r.loose.Get(g.ctx, id)
		if err == nil || !errors.Is(err, objects.ErrNotFound) {
			return o, err
		}
		// Removed since the listing (another gc): a packed copy may exist.
	}
	return g.r.packs.Get(g.ctx, id)
}

// verifyPacks re-reads every new pack from disk, every entry decompressed
// and re-hashed, before anything is removed, then makes the store search
// them.
func (g *gcRun) verifyPacks() error {
	done := 0
	for name, want := range g.written {
		g.report(GCPhaseVerify, done, len(g.written))
		n, err := g.r.packs.Verify(g.ctx, name)
		if err != nil {
			return gcVerifyFailed(name, err)
		}
		if n != want {
			return gcVerifyFailed(name, fmt.Errorf("%d objects read back, %d written", n, want))
		}
		done++
	}
	g.report(GCPhaseVerify, done, len(g.written))
	return g.r.packs.Reload()
}

// remove unlinks the loose copies now held by a verified pack (and the
// pruned ones), then, when the packs were consolidated, the old packs:
// index first, so no reader finds an index without its pack.
func (g *gcRun) remove() error {
	if g.opt.KeepOld {
		return nil
	}
	total := len(g.removeLoose)
	for i, id := range g.removeLoose {
		if i%gcProgressEvery == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
			g.report(GCPhaseRemove, i, total)
		}
		p, err := g.r.loose.Path(id)
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove loose %s: %w", id, err)
		}
		g.res.LooseRemoved++
	}
	g.report(GCPhaseRemove, total, total)
	if !g.consolidate {
		return nil
	}
	dir := g.r.packs.Dir()
	for _, name := range g.old {
		if _, rewritten := g.written[name]; rewritten {
			continue // the new pack came out byte for byte the same
		}
		for _, ext := range []string{".idx", ".pack"} {
			if err := os.Remove(filepath.Join(dir, name+ext)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove old pack %s: %w", name, err)
			}
		}
		g.res.PacksRemoved = append(g.res.PacksRemoved, name)
	}
	if err := fsutil.SyncDir(dir); err != nil {
		return err
	}
	return g.r.packs.Reload()
}
