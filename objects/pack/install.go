package pack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/objects"
)

// WritePack writes objs as one new pack, durably, and adds it to the
// front of the search order. It returns the pack's name, or "" for an empty
// objs.
func (s *Store) WritePack(ctx context.Context, objs []*objects.Object, opt Options) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(objs) == 0 {
		return "", nil
	}
	w, err := NewWriter(s.dir, s.algo, opt)
	if err != nil {
		return "", err
	}
	return s.finishPack(ctx, w, objs)
}

// finishPack adds objs to w, commits it and installs the pack.
func (s *Store) finishPack(ctx context.Context, w *Writer, objs []*objects.Object) (string, error) {
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			w.Abort()
			return "", err
		}
		if err := w.Add(o); err != nil {
			w.Abort()
			return "", err
		}
	}
	return s.commitInstall(w)
}

// commitInstall commits w and installs the pack. Past the commit point the
// pack is visible, so it is installed even when only the final directory
// sync failed; that error is still returned.
func (s *Store) commitInstall(w *Writer) (string, error) {
	name, err := w.Commit()
	if name == "" {
		return "", err
	}
	if ierr := s.install(name, w.entries); ierr != nil && err == nil {
		err = ierr
	}
	return name, err
}

// install opens a pack this process committed, held holding the entries
// of its objects, and puts it first. Between the commit and the open,
// another process may merge the pack and remove its files (MergeSmall,
// which commits the merged pack before removing anything): then the packs
// are listed again, and the write stands only if every object of the pack
// is found in another.
func (s *Store) install(name string, held []spEntry) error {
	err := s.installOpen(name)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if rerr := s.Reload(); rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, e := range held {
		id := objects.OID{Algo: s.algo}
		id.Type, _ = spTypeOf(e.key[32])
		copy(id.Digest[:], e.key[:32])
		ok, herr := s.holds(id)
		if herr != nil {
			return errors.Join(err, herr)
		}
		if !ok {
			return fmt.Errorf("storage pack %s was removed after its commit and object %s is in no other pack: %w", name, id, err)
		}
	}
	return nil
}

// installOpen opens the committed pack name and puts it first.
func (s *Store) installOpen(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending.Load() {
		// The first use: open every listed pack, name among them unless
		// it vanished since its commit, which install must then check as
		// it checks a failed open.
		if err := s.reloadLocked(); err != nil {
			return err
		}
		if !slices.ContainsFunc(*s.packs.Load(), func(p *spPack) bool { return p.name == name }) {
			return fmt.Errorf("storage pack %s: %w", filepath.Join(s.dir, name+".idx"), fs.ErrNotExist)
		}
		return nil
	}
	old := *s.packs.Load()
	for _, p := range old {
		if p.name == name {
			return nil // rewritten byte for byte: already open
		}
	}
	if openWindowHook != nil {
		openWindowHook(name)
	}
	p, err := openSPPackLazy(s.dir, name, s.algo)
	if err != nil {
		return err
	}
	p.cache, p.dcache, p.store = s.cache, s.dcache, s
	next := append([]*spPack{p}, old...)
	s.packs.Store(&next)
	return nil
}
