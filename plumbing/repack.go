package plumbing

import (
	"context"
	"fmt"
	"time"
)

// RepackOptions configures Repack.
type RepackOptions struct {
	// Delete removes the old packs and the loose copies once the new pack
	// is durable and verified (git repack -d); without it they stay, and
	// the new pack is redundant.
	Delete bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Progress is as in GCOptions.
	Progress func(GCProgress)
}

// Repack writes every object, loose and packed, into one new storage pack
// (git repack -a; with Delete, git repack -ad). It never prunes: every
// object of the old packs and every loose object is in the new pack before
// anything is removed, with the crash safety of GC. A sha256 repository
// that has not opted into storage packs refuses with ErrStoragePacksOff:
// its objects stay loose so OpenTine can read them.
func Repack(ctx context.Context, r *Repo, opt RepackOptions) (*GCResult, error) {
	if !r.StoragePacks() {
		return nil, fmt.Errorf("repack: %w", ErrStoragePacksOff)
	}
	return GC(ctx, r, GCOptions{All: true, KeepOld: !opt.Delete, Now: opt.Now, Progress: opt.Progress})
}
