package plumbing

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// gcViewPrefix names the scratch directories in objects/pack/ where gc
// copies young packs to learn what they hold. A crash leaves one behind;
// the next gc removes it after DefaultStaleAfter, and fsck warns about it.
const gcViewPrefix = ".tmp-gcview-"

// gcViewHook, when set by a test, runs after the young packs are copied
// into the scratch directory dir and before gc opens it.
var gcViewHook func(dir string)

// gcDisposition is what gc does with one object.
type gcDisposition int

const (
	gcToMain     gcDisposition = iota // into the new pack
	gcToCruft                         // unreachable, young, packed: into the cruft pack
	gcKeepLoose                       // unreachable, young loose copy: left alone
	gcPackedStay                      // unreachable old loose copy of an object a kept pack holds
	gcDrop                            // unreachable and old: deleted
)

// planPrune computes reachability, the prune cutoff and the young packs'
// objects, and decides whether packs must be rewritten to drop objects.
func (g *gcRun) planPrune() error {
	g.report(GCPhaseReachable, 0, 0)
	reach, err := Reachable(g.ctx, g.r)
	if err != nil {
		return err
	}
	g.reach = reach
	g.res.Reachable = len(reach)
	g.cutoff = g.now.Add(-max(g.opt.PruneAge, 0))
	if err := g.listPacked(); err != nil {
		return err
	}
	var young []string
	for name, t := range g.packTime {
		if !t.Before(g.cutoff) {
			young = append(young, name)
		}
		if t.After(g.cruftTime) {
			g.cruftTime = t
		}
	}
	unreachable := 0
	for id := range g.packed {
		if !reach[id] {
			unreachable++
		}
	}
	if unreachable > 0 && len(young) > 0 {
		if g.young, err = g.youngMembers(young); errors.Is(err, ErrDamagedPacks) {
			return err
		} else if err != nil {
			// Without the membership every packed object counts as young:
			// pruning is delayed, never early.
			g.youngUnknown = true
		}
	}
	// Dropping a packed object means rewriting the packs.
	for id := range g.packed {
		if g.reach[id] || g.youngUnknown || g.young[id] {
			continue
		}
		if t, ok := g.looseTime[id]; ok && !t.Before(g.cutoff) {
			continue
		}
		g.consolidate = true
		break
	}
	if !g.consolidate {
		// Every unreachable packed object stays where it is: too young.
		for id := range g.packed {
			if !g.reach[id] && !g.looseSet[id] {
				g.res.KeptYoung++
			}
		}
	}
	return nil
}

// disposition decides an object's fate (see gcDisposition).
func (g *gcRun) disposition(id objects.OID) gcDisposition {
	if !g.opt.Prune || g.reach[id] {
		return gcToMain
	}
	if t, ok := g.looseTime[id]; ok && !t.Before(g.cutoff) {
		return gcKeepLoose
	}
	if g.packed[id] {
		switch {
		case !g.consolidate:
			return gcPackedStay
		case g.youngUnknown || g.young[id]:
			return gcToCruft
		}
	}
	return gcDrop
}

// youngMembers returns the objects held by the named packs. PackStore
// answers only for a whole directory, so the packs are copied into a
// scratch directory (hard links would not do: pack files must be singly
// linked) and opened there.
//
// A copy the view cannot open, or whose index fails its verification, is
// an error wrapping ErrDamagedPacks, and gc stops: the view skips such a
// pack, so its objects would be missing from the set and count as old,
// and gc would drop young objects. The originals passed checkDamage, so
// damage here means the pack changed or was copied wrong: nothing is safe
// to decide.
func (g *gcRun) youngMembers(names []string) (map[objects.OID]bool, error) {
	dir, err := os.MkdirTemp(g.r.packs.Dir(), gcViewPrefix)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for _, name := range names {
		for _, ext := range []string{".pack", ".idx"} {
			if err := copyFile(filepath.Join(g.r.packs.Dir(), name+ext), filepath.Join(dir, name+ext)); err != nil {
				return nil, err
			}
		}
	}
	if gcViewHook != nil {
		gcViewHook(dir)
	}
	view, err := pack.Open(dir, g.r.algo)
	if err != nil {
		return nil, err
	}
	defer view.Close()
	d, err := view.Damaged()
	if err != nil {
		return nil, err
	}
	if len(d) > 0 {
		return nil, fmt.Errorf("%w: gc's copy of young storage pack %s is unreadable (%v): the pack changed during gc or the copy failed; run tine fsck, then gc again",
			ErrDamagedPacks, d[0].Name, oneLineErr(d[0].Err))
	}
	if got, err := view.Packs(); err != nil {
		return nil, err
	} else if len(got) != len(names) {
		return nil, fmt.Errorf("%w: %d young packs copied, %d readable", ErrDamagedPacks, len(names), len(got))
	}
	set := map[objects.OID]bool{}
	err = view.List(g.ctx, func(id objects.OID) error {
		set[id] = true
		return nil
	})
	return set, err
}

// copyFile copies the regular file src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// checkDamage records the packs that cannot be read and, when pruning,
// refuses: a pack without a usable index may hold reachable objects (or
// objects linking to them), and it is never removed, so gc must not act
// on a view that misses it. The error names each pack and the fix.
func (g *gcRun) checkDamage() error {
	d, err := g.r.packs.Damaged()
	if err != nil {
		return err
	}
	for _, p := range d {
		g.res.DamagedPacks = append(g.res.DamagedPacks, p.Name)
	}
	if len(d) == 0 || !g.opt.Prune {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrDamagedPacks, pack.DamageError(d))
}

// cleanStaleViews removes scratch directories of crashed gcs and the pack
// and loose temp files of crashed writers, all older than
// DefaultStaleAfter, so a running writer is never disturbed; it completes
// pack commits a crash interrupted (pack.Store.RemoveGarbage). While
// pruning, gc holds the writers' lock exclusive, so no pack writer can be
// running (bulk writers hold it shared, other gcs wait for the gc lock):
// every pack temp file is then a dead writer's, whatever its age.
func (g *gcRun) cleanStaleViews() {
	cutoff := g.now.Add(-DefaultStaleAfter)
	packCutoff := cutoff
	if g.opt.Prune {
		packCutoff = g.now.Add(time.Second)
	}
	dir := g.r.packs.Dir()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), gcViewPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	n, _ := g.r.packs.RemoveGarbage(g.ctx, packCutoff)
	m, _ := g.r.loose.RemoveStaleTemp(g.ctx, cutoff)
	g.res.GarbageRemoved = n + m
}

// gcVerifyFailed wraps a new pack that did not read back.
func gcVerifyFailed(name string, err error) error {
	return fmt.Errorf("new pack %s does not read back, nothing was removed: %w", name, err)
}
