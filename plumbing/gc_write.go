package plumbing

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// gcProgressEvery is how many objects pass between progress reports.
const gcProgressEvery = 4096

// Write order. gc writes objects in the order they were written, oldest
// first, not in oid order: readers tend to read objects in (or near) the
// order they were written (a run's events, a batch's blobs), and a pack
// block holds several objects, so write order lets such reads decode each
// block once where oid order scatters them over random blocks (git keeps
// recency order for the same reason). The order is:
//
//   - the old packs being rewritten, oldest pack file first (modification
//     time, then name), each in its own pack order (block offset, then
//     position in the block), which is the order its writer added them;
//   - merged with the loose objects by time: a loose object's time is its
//     file's modification time, ties broken by enumeration order (SPEC
//     §2.1), and a pack sorts before loose objects of the same time.
//
// An object held in several places is written once, where it comes first.

// gcSource is one unit of the write order: an old pack, walked whole, or
// one loose object.
type gcSource struct {
	t    time.Time
	pack string      // the pack's name; "" for a loose object
	id   objects.OID // the loose object
}

// sources returns the write order of the objects gc considers: the loose
// objects it listed and, when the packs are rewritten, the old packs.
// Objects written after the listing are never touched.
func (g *gcRun) sources() []gcSource {
	out := make([]gcSource, 0, len(g.loose)+len(g.old))
	for _, id := range g.loose {
		t, ok := g.looseTime[id]
		if !ok {
			// Without pruning gc did not stat the files; a file gone since
			// the listing sorts first and is then read from a pack.
			if p, err := g.r.loose.Path(id); err == nil {
				if fi, err := os.Lstat(p); err == nil {
					t = fi.ModTime()
				}
			}
		}
		out = append(out, gcSource{t: t, id: id})
	}
	if g.consolidate {
		for _, name := range g.old {
			out = append(out, gcSource{t: g.packTime[name], pack: name})
		}
	}
	slices.SortStableFunc(out, func(a, b gcSource) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		switch {
		case a.pack != "" && b.pack != "":
			return strings.Compare(a.pack, b.pack)
		case a.pack != "":
			return -1
		case b.pack != "":
			return 1
		}
		return enumCompare(a.id, b.id)
	})
	return out
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

// gcWriter routes the objects gc considers into the new pack and the
// cruft pack, each object once.
type gcWriter struct {
	g           *gcRun
	main, cruft *pack.Writer
	seen        map[objects.OID]struct{}
	done, total int
}

// writePacks streams the kept objects into the new pack (and unreachable
// young packed ones into a cruft pack) in write order (see above), so a
// later read in write order decodes each block once. Old packs are read
// in pack order, each block decoded once. Memory is the writers' indexes,
// the set of objects seen and one block or object at a time.
func (g *gcRun) writePacks() (err error) {
	w := &gcWriter{g: g, seen: make(map[objects.OID]struct{}, len(g.loose)+len(g.packList))}
	w.total = len(g.loose) + len(g.packList)
	defer func() {
		if err != nil {
			for _, pw := range []*pack.Writer{w.main, w.cruft} {
				if pw != nil {
					pw.Abort()
				}
			}
		}
	}()
	for _, src := range g.sources() {
		if src.pack == "" {
			if err := w.consider(src.id, nil); err != nil {
				return err
			}
			continue
		}
		err := g.r.packs.Walk(g.ctx, src.pack, func(id objects.OID, o *objects.Object, rerr error) error {
			if rerr != nil {
				o = nil // this copy is damaged: consider reads another one
			}
			return w.consider(id, o)
		})
		if err != nil {
			return fmt.Errorf("read old pack %s: %w", src.pack, err)
		}
	}
	g.report(GCPhasePack, w.total, w.total)
	return w.commit()
}

// consider decides the fate of id the first time it comes (see
// gcDisposition) and writes it where it goes; o is its verified object
// when the caller has it, else it is read.
func (w *gcWriter) consider(id objects.OID, o *objects.Object) error {
	g := w.g
	if _, dup := w.seen[id]; dup {
		return nil
	}
	w.seen[id] = struct{}{}
	if w.done%gcProgressEvery == 0 {
		if err := g.ctx.Err(); err != nil {
			return err
		}
		g.report(GCPhasePack, w.done, w.total)
	}
	w.done++
	d := g.disposition(id)
	if g.looseSet[id] && d != gcKeepLoose {
		g.removeLoose = append(g.removeLoose, id)
	}
	var pw **pack.Writer
	switch d {
	case gcToMain:
		pw = &w.main
	case gcToCruft:
		pw, g.res.KeptYoung = &w.cruft, g.res.KeptYoung+1
	case gcKeepLoose:
		g.res.KeptYoung++
		return nil
	case gcDrop:
		g.res.Pruned++
		return nil
	default:
		return nil
	}
	if *pw == nil {
		var err error
		if *pw, err = pack.NewWriter(g.r.packs.Dir(), g.r.algo, pack.Options{}); err != nil {
			return err
		}
	}
	if o == nil {
		var err error
		if o, err = g.read(id); err != nil {
			return err
		}
	}
	return (*pw).Add(o)
}

// commit commits the new pack and the cruft pack, if any.
func (w *gcWriter) commit() error {
	g := w.g
	g.written = map[string]int{}
	if w.main != nil {
		n := w.main.Len()
		name, err := w.main.Commit()
		w.main = nil
		if err != nil {
			return fmt.Errorf("commit new pack: %w", err)
		}
		g.res.Pack, g.res.Objects, g.written[name] = name, n, n
	}
	if w.cruft != nil {
		n := w.cruft.Len()
		name, err := w.cruft.Commit()
		w.cruft = nil
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
// pack file first, so a crash leaves at worst an index without its pack,
// which holds nothing and is cleared, never a pack without its index,
// which might hold needed objects and is kept until tine index-pack. A
// reader that finds the index but not the pack skips it (Reload).
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
		if err := g.r.packs.RemovePack(name); err != nil {
			return err
		}
		g.res.PacksRemoved = append(g.res.PacksRemoved, name)
	}
	if err := fsutil.SyncDir(dir); err != nil {
		return err
	}
	return g.r.packs.Reload()
}
