package plumbing

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// WarnPackedOnly: objects held only by storage packs in a sha256
// repository that keeps every object loose (Repo.StoragePacks is false),
// left by an older tine or from before an opt-out. OpenTine cannot read
// them; the next tine gc writes them back out loose. A warning, not a
// problem: tine reads them and the repository is sound.
const WarnPackedOnly = "packed-only"

// checkPackedOnly warns, once, about the objects only a storage pack holds
// in a repository that keeps every object loose.
func (f *fsck) checkPackedOnly() error {
	if f.r.StoragePacks() || f.r.packs == nil {
		return nil
	}
	n := 0
	var first objects.OID
	err := f.r.packs.List(f.ctx, func(id objects.OID) error {
		ok, err := f.r.loose.Has(f.ctx, id)
		if err != nil || ok {
			return err
		}
		if n == 0 {
			first = id
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		return err
	}
	f.warn(Problem{Code: WarnPackedOnly, Object: first.String(), Path: storagePackRel,
		Message: fmt.Sprintf("%d object(s) only in storage packs, which OpenTine cannot read (this sha256 repository keeps objects loose): tine gc writes them back out loose", n)})
	return nil
}
