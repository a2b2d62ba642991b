package plumbing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tinehq/tine/objects"
)

// DefaultGCPackLimit is how many storage packs gc tolerates before it
// consolidates them all into one: every pack is one more index to search
// on a miss, while rewriting everything costs a decode and re-encode per
// object, so gc only pays that when the packs have piled up (git gc --auto
// uses 50; tine's bulk writers make a pack per batch, so it is lower).
const DefaultGCPackLimit = 16

// Phases GCProgress reports, in order.
const (
	// GCPhaseReachable walks refs, reflogs and links (only with Prune).
	GCPhaseReachable = "reachability"
	// GCPhasePack streams objects into the new pack.
	GCPhasePack = "packing"
	// GCPhaseVerify re-reads the new pack before anything is removed.
	GCPhaseVerify = "verifying"
	// GCPhaseRemove removes loose copies and old packs.
	GCPhaseRemove = "removing"
)

// GCOptions configures GC (and Repack, which is GC with All set).
type GCOptions struct {
	// Prune deletes unreachable objects (see Reachable) older than
	// PruneAge; without it nothing is ever deleted that is not also in a
	// new pack.
	Prune bool
	// PruneAge is the minimum age of a pruned object: a loose object's
	// modification time, a packed object's pack's. 0 prunes every
	// unreachable object ("--prune=now").
	PruneAge time.Duration
	// All consolidates every pack into one whatever their number (tine
	// repack); otherwise gc consolidates when there are more than
	// PackLimit packs, or when pruning drops packed objects.
	All bool
	// KeepOld leaves the old packs and the loose copies in place (tine
	// repack without -d): the new pack is then redundant.
	KeepOld bool
	// PackLimit overrides DefaultGCPackLimit when positive.
	PackLimit int
	// Now is the clock ages are measured with; nil means time.Now.
	Now func() time.Time
	// Progress, when set, is called as work advances (from the calling
	// goroutine only).
	Progress func(GCProgress)
}

// GCProgress is one progress report: Done of Total items of Phase.
type GCProgress struct {
	Phase string
	Done  int
	Total int
}

// GCResult is what `tine gc` and `tine repack` report.
type GCResult struct {
	// Pack names the pack written (empty when there was nothing to pack)
	// and Objects counts its objects.
	Pack    string `json:"pack,omitempty"`
	Objects int    `json:"objects"`
	// CruftPack holds unreachable packed objects kept because their pack
	// is younger than the prune age; it keeps that pack's age, so they
	// expire on time (git's cruft packs).
	CruftPack    string `json:"cruft_pack,omitempty"`
	CruftObjects int    `json:"cruft_objects,omitempty"`
	// Consolidated reports that every old pack was rewritten.
	Consolidated bool `json:"consolidated"`
	// LooseRemoved counts loose files removed (packed or pruned).
	LooseRemoved int `json:"loose_removed"`
	// PacksRemoved names the old packs removed.
	PacksRemoved []string `json:"packs_removed"`
	// Reachable counts reachable objects (with Prune).
	Reachable int `json:"reachable,omitempty"`
	// Pruned counts unreachable objects deleted; KeptYoung those kept
	// because younger than PruneAge.
	Pruned    int `json:"pruned"`
	KeptYoung int `json:"kept_young"`
	// Packs is the number of packs afterwards.
	Packs int `json:"packs"`
	// StoragePacks reports whether the repository keeps objects in
	// storage packs (Repo.StoragePacks); when false gc packed nothing and
	// LooseWritten counts the packed objects it wrote back out loose
	// (their packs are in PacksRemoved).
	StoragePacks bool `json:"storage_packs"`
	LooseWritten int  `json:"loose_written"`
	// GarbageRemoved counts crash leftovers gc cleared first: temp files
	// of unfinished writes older than DefaultStaleAfter (any age in
	// objects/pack/ while pruning, when no writer can be running), and
	// pack commits a crash interrupted, completed.
	GarbageRemoved int `json:"garbage_removed"`
	// DamagedPacks names the storage packs that cannot be read (a damaged
	// or missing index); gc leaves them alone, and refuses to prune while
	// there are any.
	DamagedPacks []string `json:"damaged_packs,omitempty"`
}

// ErrDamagedPacks is why gc refuses to prune: some storage pack cannot be
// read, and any of its objects may be reachable or link to reachable ones.
var ErrDamagedPacks = errors.New("storage packs cannot be read, so nothing was pruned")

// GC packs the loose objects into a new storage pack and removes their
// loose copies; it consolidates all packs into one when there are more than
// the pack limit (or with All); with Prune it deletes unreachable objects
// older than the prune age, never a reachable one (see Reachable).
// In a sha256 repository that keeps every object loose (Repo.StoragePacks
// is false) it packs nothing: it writes the objects of any storage pack
// back out as loose files, removes those packs, and prunes loose objects
// (gc_loose.go).
//
// Crash safety (ARCHITECTURE §6): nothing is removed before the pack that
// holds it is durable and has been re-read: the new pack is committed
// (fsynced, renamed, directory fsynced), then every entry of it is
// verified from disk (PackStore.Verify), and only then are loose copies
// unlinked and old packs deleted, pack file first. A crash at any moment
// leaves every object readable, loose or in a durable pack; it may leave
// a redundant copy, an index without its pack or a temp file, which the
// next gc or fsck --remove-stale clears. It never leaves a pack without
// its index: such a pack may hold needed objects, so nothing deletes it
// (pack.Store.RemoveGarbage).
//
// Concurrency (repo_lock.go): readers are never blocked and never lose an
// object they can see (gc commits a pack before it unlinks anything, and
// a reader re-scans the packs on a miss). gc holds objects/locks/gc for its
// whole run, so a second gc waits for the first. Without Prune nothing
// reachable or unreachable is lost, so writers run alongside. With Prune,
// gc holds the writers' lock exclusive from before it lists the objects
// until its last deletion: no writer can then be between writing an
// object and moving the ref that makes it reachable, so gc never deletes
// an object a concurrent writer is about to reference, whatever the prune
// age. Writers wait for the prune meanwhile (and say so).
func GC(ctx context.Context, r *Repo, opt GCOptions) (*GCResult, error) {
	if r.packs == nil {
		return nil, fmt.Errorf("gc: %w", r.packsErr)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.PackLimit <= 0 {
		opt.PackLimit = DefaultGCPackLimit
	}
	unlockGC, err := r.lockGC(ctx)
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	defer unlockGC()
	if opt.Prune {
		unlockPrune, err := r.lockPrune(ctx, "pruning")
		if err != nil {
			return nil, fmt.Errorf("gc: %w", err)
		}
		defer unlockPrune()
	}
	g := &gcRun{ctx: ctx, r: r, opt: opt, res: &GCResult{PacksRemoved: []string{}}}
	// The clock starts once the locks are held: ages count from the
	// moment nothing can change under gc.
	g.now = opt.Now()
	if err := g.run(); err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	return g.res, nil
}

// report calls the progress callback, if any.
func (g *gcRun) report(phase string, done, total int) {
	if g.opt.Progress != nil {
		g.opt.Progress(GCProgress{Phase: phase, Done: done, Total: total})
	}
}

// run is GC's body.
func (g *gcRun) run() error {
	g.cleanStaleViews()
	g.res.StoragePacks = g.r.StoragePacks()
	if !g.res.StoragePacks {
		return g.runLoose() // gc_loose.go: every object stays loose
	}
	if err := g.r.packs.Reload(); err != nil {
		return err
	}
	if err := g.checkDamage(); err != nil {
		return err
	}
	var err error
	if g.old, err = g.r.packs.Packs(); err != nil {
		return err
	}
	g.packTime = make(map[string]time.Time, len(g.old))
	for _, name := range g.old {
		fi, err := os.Stat(filepath.Join(g.r.packs.Dir(), name+".pack"))
		if err != nil {
			return fmt.Errorf("storage pack %s: %w", name, err)
		}
		g.packTime[name] = fi.ModTime()
	}
	if err := g.listLoose(); err != nil {
		return err
	}
	g.consolidate = g.opt.All || len(g.old) >= g.opt.PackLimit
	if g.opt.Prune {
		if err := g.planPrune(); err != nil {
			return err
		}
	} else if g.consolidate {
		if err := g.listPacked(); err != nil {
			return err
		}
	}
	if !g.consolidate && len(g.loose) == 0 {
		g.res.Packs = len(g.old)
		return nil
	}
	g.res.Consolidated = g.consolidate
	if err := g.writePacks(); err != nil {
		return err
	}
	if err := g.verifyPacks(); err != nil {
		return err
	}
	if err := g.remove(); err != nil {
		return err
	}
	return g.countPacks()
}

// countPacks records how many storage packs gc leaves.
func (g *gcRun) countPacks() error {
	names, err := g.r.packs.Packs()
	g.res.Packs = len(names)
	return err
}

// listLoose records the loose objects (with their modification times when
// pruning).
func (g *gcRun) listLoose() error {
	g.looseTime = map[objects.OID]time.Time{}
	g.looseSet = map[objects.OID]bool{}
	return g.r.loose.List(g.ctx, func(id objects.OID) error {
		g.loose = append(g.loose, id)
		g.looseSet[id] = true
		if g.opt.Prune {
			p, err := g.r.loose.Path(id)
			if err != nil {
				return err
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return fmt.Errorf("loose object %s: %w", id, err)
			}
			g.looseTime[id] = fi.ModTime()
		}
		return nil
	})
}

// listPacked records the objects of the old packs.
func (g *gcRun) listPacked() error {
	g.packed = map[objects.OID]bool{}
	return g.r.packs.List(g.ctx, func(id objects.OID) error {
		g.packed[id] = true
		g.packList = append(g.packList, id)
		return nil
	})
}

// gcRun is the state of one GC.
type gcRun struct {
	ctx context.Context
	r   *Repo
	opt GCOptions
	res *GCResult
	now time.Time

	old       []string // the packs when gc started, in search order
	packTime  map[string]time.Time
	loose     []objects.OID // enumeration order
	looseSet  map[objects.OID]bool
	looseTime map[objects.OID]time.Time // with Prune
	packed    map[objects.OID]bool      // objects of the old packs, when listed
	packList  []objects.OID             // the same, enumeration order

	consolidate bool
	reach       map[objects.OID]bool // with Prune
	cutoff      time.Time
	// young holds the objects of packs younger than the cutoff;
	// youngUnknown means it could not be computed, so every packed object
	// counts as young (never pruned early).
	young        map[objects.OID]bool
	youngUnknown bool
	cruftTime    time.Time

	removeLoose []objects.OID // loose files to unlink once the packs are verified
	written     map[string]int
}
