package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// StoragePacksFile is the file, at the top of a sha256 repository, whose
// presence opts that repository into storage packs. OpenTine reads only
// config.json, objects/<type>/, refs/, logs/, packs/ and shallow, so it
// never sees this file, and config.json stays byte for byte OpenTine's.
const StoragePacksFile = "storage-packs"

// storagePacksNote is the content of StoragePacksFile: only its presence
// counts, the text is for whoever finds it.
const storagePacksNote = "tine keeps objects in storage packs (objects/pack/) here, which OpenTine cannot read; `tine gc --no-storage-packs` writes them back as loose objects and removes this file.\n"

// Errors of the storage-packs setting.
var (
	// ErrStoragePacksOff means a verb that writes storage packs was asked
	// to in a sha256 repository that keeps its objects loose.
	ErrStoragePacksOff = errors.New("this sha256 repository keeps every object loose so OpenTine can read it; `tine gc --storage-packs` opts it into storage packs")
	// ErrStoragePacksFixed means the setting was changed in a blake3
	// repository, which always uses storage packs (OpenTine cannot read a
	// blake3 repository whatever its layout).
	ErrStoragePacksFixed = errors.New("blake3 repositories always use storage packs; the setting is for sha256 repositories")
)

// StoragePacks reports whether tine may keep objects of this repository
// only in storage packs: always in a blake3 repository; in a sha256 one
// only when StoragePacksFile exists. Otherwise every object is a loose
// file (the SPEC's layout, which OpenTine reads): writes go to loose files
// whatever their number, gc never moves loose objects into packs and
// writes packed objects back out loose, and repack refuses.
func (r *Repo) StoragePacks() bool { return r.algo != objects.SHA256 || r.packOptIn }

// SetStoragePacks opts this sha256 repository into storage packs (on) or
// out of them, durably: the file is written atomically, or removed and its
// directory fsynced. Opting out does not move objects by itself: the next
// tine gc writes every packed object back out loose and removes the packs.
// A blake3 repository refuses with ErrStoragePacksFixed. It changes r's
// write routing, so it must not run concurrently with other uses of r;
// other processes see the change when they next open the repository.
func (r *Repo) SetStoragePacks(on bool) error {
	if r.algo != objects.SHA256 {
		return ErrStoragePacksFixed
	}
	p := filepath.Join(r.root, StoragePacksFile)
	if on {
		if err := fsutil.WriteFileAtomic(p, []byte(storagePacksNote), 0o644); err != nil {
			return fmt.Errorf("opt into storage packs: %w", err)
		}
	} else {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("opt out of storage packs: %w", err)
		}
		if err := fsutil.SyncDir(r.root); err != nil {
			return fmt.Errorf("opt out of storage packs: %w", err)
		}
	}
	r.packOptIn = on
	r.routeWrites()
	return nil
}

// readPackOptIn reports whether root holds StoragePacksFile, refusing one
// that is not a regular file (SPEC §2.1 path confinement).
func readPackOptIn(root string) (bool, error) {
	p := filepath.Join(root, StoragePacksFile)
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !st.Mode().IsRegular():
		return false, fmt.Errorf("%s is not a regular file (%s): %w", p, st.Mode().Type(), ErrNotConfined)
	}
	return true, nil
}

// routeWrites sets the store Objects returns: the combined store when tine
// may write storage packs, otherwise one that reads loose objects and
// packs but writes loose files only.
func (r *Repo) routeWrites() {
	switch {
	case r.combined == nil:
		r.objs = lockingLoose{r.loose, r}
	case r.StoragePacks():
		r.objs = *r.combined
	default:
		r.objs = looseWriteStore{*r.combined}
	}
	if r.wrap != nil {
		r.objs = r.wrap(r.objs)
	}
}

// looseWriteStore is the object store of a sha256 repository that has not
// opted into storage packs: it reads like the combined store (loose files,
// then any packs an older tine left, which gc writes back out) and writes
// loose files only, whatever the batch size, so OpenTine reads every
// object tine writes. It deliberately has no Packs method, so a BulkWriter
// over it sizes batches for loose writes.
type looseWriteStore struct{ rs reloadingStore }

var _ interface {
	objects.Store
	objects.BatchPutter
	objects.TypeLister
	objects.ReadOrderer
} = looseWriteStore{}

// Algo returns the store's hash profile.
func (s looseWriteStore) Algo() objects.Algo { return s.rs.Algo() }

// GetUnparsed is Get without the json body's parse.
func (s looseWriteStore) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.rs.GetUnparsed(ctx, id)
}

// Get reads id from a loose file, else from a pack.
func (s looseWriteStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.rs.Get(ctx, id)
}

// Has reports whether a loose file or a pack holds id.
func (s looseWriteStore) Has(ctx context.Context, id objects.OID) (bool, error) {
	return s.rs.Has(ctx, id)
}

// SortForRead reorders ids into the packs' write order
// (objects.ReadOrderer).
func (s looseWriteStore) SortForRead(ids []objects.OID) { s.rs.SortForRead(ids) }

// List lists the objects of the loose files and the packs.
func (s looseWriteStore) List(ctx context.Context, fn func(objects.OID) error) error {
	return s.rs.List(ctx, fn)
}

// ListTypes lists the objects of the given types of the loose files and
// the packs (objects.TypeLister).
func (s looseWriteStore) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	return s.rs.ListTypes(ctx, types, fn)
}

// Put takes the writers' lock (repo_lock.go), then stores o as a loose
// file, even when a pack holds it: loose files are what OpenTine reads.
func (s looseWriteStore) Put(ctx context.Context, o *objects.Object) error {
	if err := s.rs.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.rs.Loose().Put(ctx, o)
}

// PutBatch takes the writers' lock, then stores objs as loose files with
// one round of fsyncs (see loose.Store.PutBatch).
func (s looseWriteStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	if err := s.rs.r.LockWriters(ctx); err != nil {
		return err
	}
	return s.rs.Loose().PutBatch(ctx, objs)
}

// PutBlobFrom takes the writers' lock, then streams a blob into a loose
// file.
func (s looseWriteStore) PutBlobFrom(ctx context.Context, rd io.Reader) (objects.OID, error) {
	return s.rs.PutBlobFrom(ctx, rd)
}

// Loose returns the loose store, which streams large blobs.
func (s looseWriteStore) Loose() *loose.Store { return s.rs.Loose() }
