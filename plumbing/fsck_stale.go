package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tinehq/tine/refs"
)

// removeStale deletes crash leftovers (FsckOptions.RemoveStale). Ref
// guards, staging files, journals, shallow.lock and shallow temporaries go
// through the ref store, which removes tine's whatever their age when
// their writer is dead (it holds an flock for life, see package refs),
// after rolling committed transactions forward. Everything whose writer's
// liveness cannot be probed goes by age: object temp files, storage packs
// without an index and gc scratch directories (through the object
// stores), foreign ref guards, and temporary files under refs/ and logs/
// (tine's ref store writes none there).
func (f *fsck) removeStale() error {
	cutoff := f.opt.Now().Add(-f.opt.StaleAfter)
	anyAge := f.opt.StaleAfter <= 0
	if err := f.removeObjectLeftovers(cutoff, anyAge); err != nil {
		return err
	}
	var olderThan time.Time
	if !anyAge {
		olderThan = cutoff
	}
	removed, err := f.r.refs.RemoveStaleGuards(f.ctx, refs.RemoveOptions{OlderThan: olderThan})
	f.res.Removed = append(f.res.Removed, removed...)
	if err != nil {
		return fmt.Errorf("remove stale ref guards: %w", err)
	}
	for _, top := range []string{"refs", "logs"} {
		dir := filepath.Join(f.r.root, top)
		err := walkFiles(dir, func(rel string, d fs.DirEntry) error {
			if !strings.HasPrefix(filepath.Base(rel), ".tmp-") || !d.Type().IsRegular() {
				return nil
			}
			if info, err := d.Info(); err != nil || (!anyAge && !info.ModTime().Before(cutoff)) {
				return nil
			}
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			f.res.Removed = append(f.res.Removed, top+"/"+rel)
			return nil
		})
		if err != nil {
			return fmt.Errorf("remove stale %s files: %w", top, err)
		}
	}
	return nil
}

// removeObjectLeftovers deletes object temp files and storage pack
// garbage modified before cutoff, or of any age with anyAge. At any age
// a leftover can be a running writer's: a temp file it is about to
// rename, or the temp index of a pack it has just renamed into place
// (pack.Writer.Commit renames the pack first), which RemoveGarbage takes
// for an interrupted commit and renames itself, failing the writer's own
// rename and so its write. So, as gc --prune does, it first takes the gc
// lock and the writers' lock exclusive (saying so while it waits): no
// writer is then running, and every leftover is a dead writer's.
func (f *fsck) removeObjectLeftovers(cutoff time.Time, anyAge bool) error {
	if anyAge {
		cutoff = f.opt.Now().Add(time.Hour) // every existing temp file
		unlockGC, err := f.r.lockGC(f.ctx)
		if err != nil {
			return fmt.Errorf("remove leftovers of any age: %w", err)
		}
		defer unlockGC()
		unlockWriters, err := f.r.lockPrune(f.ctx, "removing leftovers of any age")
		if err != nil {
			return fmt.Errorf("remove leftovers of any age: %w", err)
		}
		defer unlockWriters()
	}
	n, err := f.r.loose.RemoveStaleTemp(f.ctx, cutoff)
	if err != nil {
		return fmt.Errorf("remove object temp files: %w", err)
	}
	f.res.RemovedTemp = n
	m, err := f.removePackGarbage(cutoff)
	if err != nil {
		return fmt.Errorf("remove storage pack leftovers: %w", err)
	}
	f.res.RemovedTemp += m
	return nil
}

// staleGuardWarnings turns the ref store's view of guards, staging files,
// journals and shallow.lock into stale-lock warnings naming each file's
// age and whether its writer is alive: a live writer's guard is an update
// in progress; a dead writer's is removed by the next update of its ref
// (or --remove-stale); a foreign tool's may be either.
func (f *fsck) staleGuardWarnings() error {
	gs, err := f.r.refs.StaleGuards(f.ctx)
	if err != nil {
		return fmt.Errorf("list ref guards: %w", err)
	}
	now := f.opt.Now()
	for _, g := range gs {
		age := now.Sub(g.ModTime).Round(time.Second)
		var msg string
		switch {
		case g.Alive:
			msg = fmt.Sprintf("%s of a running writer, %s old: an update is in progress", g.Kind, age)
		case g.Foreign:
			msg = fmt.Sprintf("%s not created by tine (another tool such as OpenTine may be updating the ref), %s old: "+
				"`tine fsck --remove-stale` removes it once older than --stale-after (default 1h)", g.Kind, age)
		case g.Kind == refs.GuardJournal:
			msg = fmt.Sprintf("journal of a dead writer, %s old: the next ref write or `tine fsck --remove-stale` finishes its transaction", age)
		default:
			msg = fmt.Sprintf("%s left by a dead writer, %s old: the next update removes it, as does `tine fsck --remove-stale`", g.Kind, age)
		}
		f.warn(Problem{Code: WarnStaleLock, Ref: g.Ref, Path: g.Path, Message: msg})
	}
	return nil
}
