package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tinehq/tine/plumbing"
)

// gcCmd is `tine gc`.
type gcCmd struct {
	Prune   string `name:"prune" placeholder:"AGE" help:"Delete unreachable objects older than AGE (now, 30m, 12h, 14d, 2w, 2.weeks.ago). Without it nothing unreachable is deleted."`
	NoPrune bool   `name:"no-prune" help:"Never delete unreachable objects (the default; overrides --prune)."`
	// StoragePacks and NoStoragePacks change the sha256 repository's
	// storage-packs setting before collecting (storage_packs.go).
	StoragePacks   bool `name:"storage-packs" help:"sha256 only: opt this repository into storage packs (OpenTine then cannot read the packed objects), then pack."`
	NoStoragePacks bool `name:"no-storage-packs" help:"sha256 only: opt out of storage packs, then write every packed object back out as a loose file and remove the packs."`
	jsonFlag
}

// Help explains gc under `tine gc --help`.
func (c *gcCmd) Help() string {
	return `Packs loose objects into a storage pack (objects/pack/), makes it durable
and re-reads it, and only then removes the loose copies. When more than 16
packs have piled up they are consolidated into one. With --prune=AGE,
objects unreachable from every ref and reflog row (attestations and
annotations live as long as what they describe) are deleted once older
than AGE; reachable objects never are. A crash at any moment leaves every
object readable. A pack whose index is damaged or missing is never
removed: gc leaves it alone, and --prune refuses until tine index-pack
rebuilds its index. A second gc waits for the first; while --prune runs,
writers (record, import, ...) wait for it, so nothing they are about to
reference is deleted. Progress goes to stderr when it is a terminal and gc
runs past a second.

A sha256 repository keeps every object loose, so OpenTine can read it:
there gc packs nothing, writes the objects of any storage pack back out as
loose files and removes the pack, and still prunes. --storage-packs opts
the repository into storage packs (recorded in the file storage-packs,
which OpenTine never reads); --no-storage-packs opts it out again.

Example:

    $ tine gc --prune=2w
    packed 1204 objects into pack-5be1…; removed 1204 loose files, 0 old packs
    pruned 3 unreachable objects (0 kept: younger than 2w); 1 pack`
}

// Run collects garbage.
func (c *gcCmd) Run(e *env) error {
	opt := plumbing.GCOptions{}
	if c.Prune != "" && !c.NoPrune {
		age, err := parseAge(c.Prune)
		if err != nil {
			return usagef("--prune: %v", err)
		}
		opt.Prune, opt.PruneAge = true, age
	}
	if c.StoragePacks && c.NoStoragePacks {
		return usagef("--storage-packs and --no-storage-packs cannot be combined")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.StoragePacks || c.NoStoragePacks {
		if err := r.SetStoragePacks(c.StoragePacks); err != nil {
			return err
		}
	}
	opt.Progress = e.plumbingProgress()
	res, err := plumbing.GC(e.ctx, r, opt)
	e.endProgress()
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printGC(p, res, c.Prune, opt.Prune) })
}

// printGC renders a gc or repack result.
func printGC(p *printer, res *plumbing.GCResult, age string, pruned bool) {
	switch {
	case !res.StoragePacks && len(res.PacksRemoved) > 0:
		p.printf("wrote %d packed objects back out as loose files and removed %d storage pack(s): OpenTine reads every object\n", res.LooseWritten, len(res.PacksRemoved))
	case !res.StoragePacks:
		p.printf("nothing to pack: this sha256 repository keeps every object loose (tine gc --storage-packs opts into packs)\n")
	case res.Pack == "" && res.LooseRemoved == 0 && len(res.PacksRemoved) == 0:
		p.printf("nothing to pack; %d pack(s)\n", res.Packs)
	case res.Pack == "":
		p.printf("removed %d loose files, %d old packs\n", res.LooseRemoved, len(res.PacksRemoved))
	default:
		p.printf("packed %d objects into %s; removed %d loose files, %d old packs\n", res.Objects, res.Pack, res.LooseRemoved, len(res.PacksRemoved))
	}
	if res.CruftPack != "" {
		p.printf("kept %d unreachable packed objects in %s until they age out\n", res.CruftObjects, res.CruftPack)
	}
	if pruned {
		p.printf("pruned %d unreachable objects (%d kept: younger than %s); %d pack(s)\n", res.Pruned, res.KeptYoung, age, res.Packs)
	}
	for _, name := range res.DamagedPacks {
		p.printf("warning: storage pack %s cannot be read (damaged or missing index) and was left alone; tine index-pack %s rebuilds its index\n", name, name)
	}
	if res.GarbageRemoved > 0 {
		p.printf("removed %d leftovers of interrupted writes\n", res.GarbageRemoved)
	}
}

// parseAge reads a prune age: "now", a Go duration ("90m", "12h"), a
// number of days or weeks ("14d", "2w"), or git's "2.weeks.ago" form.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "now" {
		return 0, nil
	}
	if num, unit, ok := strings.Cut(strings.TrimSuffix(s, ".ago"), "."); ok {
		s = num + map[string]string{"minutes": "m", "minute": "m", "hours": "h", "hour": "h", "days": "d", "day": "d", "weeks": "w", "week": "w"}[unit]
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseUint(n, 10, 16)
			if err != nil {
				return 0, fmt.Errorf("%q is not an age (now, 30m, 12h, 14d, 2w)", s)
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age (now, 30m, 12h, 14d, 2w)", s)
	}
	return d, nil
}
