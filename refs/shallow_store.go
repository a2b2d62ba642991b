package refs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/tinehq/tine/objects"
)

// shallowName is the shallow file's name in the repository root, and
// shallowLock its guard (SPEC §2.7).
const (
	shallowName = "shallow"
	shallowLock = "shallow.lock"
)

// ReadShallow returns the repository's shallow-boundary oids, sorted. A
// missing file is the empty set. The file must be a regular file with
// exactly one link and every oid must use the store's hash profile.
func (s *Store) ReadShallow() ([]objects.OID, error) {
	path := filepath.Join(s.root, shallowName)
	_, maxBytes := ShallowBounds(s.algo)
	b, err := s.readRegular(path, 1, int64(maxBytes), func(n int64) error {
		return objects.Errorf(objects.ReasonShallowOversized, "shallow file of %d bytes, limit %d", n, maxBytes)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return []objects.OID{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shallow file: %w", err)
	}
	ids, err := ParseShallowFor(b, s.algo)
	if err != nil {
		return nil, fmt.Errorf("shallow file: %w", err)
	}
	return ids, nil
}

// UpdateShallow replaces the shallow set with fn's result under the guard
// shallow.lock (SPEC §2.7: updates are serialized). fn receives the current
// set; its result is sorted and deduplicated and written atomically. An
// empty result removes nothing: it writes the empty file. A guard held by a
// live writer is a *LockedError; a dead writer's is recovered.
func (s *Store) UpdateShallow(ctx context.Context, fn func(cur []objects.OID) ([]objects.OID, error)) error {
	guard := filepath.Join(s.root, shallowLock)
	owner, err := s.newTxnID()
	if err != nil {
		return err
	}
	// Flocked like a ref guard, so StaleGuards can tell a live writer's
	// shallow.lock from one a crash left.
	g, err := s.createGuard(ctx, guard, owner)
	if errors.Is(err, fs.ErrExist) {
		// A dead writer's shallow.lock is recovered, as a ref guard is.
		if err := s.recoverShallowGuard(ctx); err != nil {
			return err
		}
		g, err = s.createGuard(ctx, guard, owner)
		if errors.Is(err, fs.ErrExist) {
			return &LockedError{Name: "shallow", Path: guard}
		}
	}
	if err != nil {
		return fmt.Errorf("shallow file: %w", err)
	}
	defer g.release()
	if err := ctx.Err(); err != nil {
		return err
	}
	cur, err := s.ReadShallow()
	if err != nil {
		return err
	}
	next, err := fn(cur)
	if err != nil {
		return err
	}
	for _, id := range next {
		if id.Algo != s.algo {
			return objects.Errorf(objects.ReasonOidMalformed, "shallow oid %s does not use this repository's %s", id, s.algo)
		}
	}
	data := EncodeShallow(next)
	maxEntries, maxBytes := ShallowBounds(s.algo)
	if n := bytes.Count(data, []byte("\n")); n > maxEntries {
		return objects.Errorf(objects.ReasonShallowTooMany, "shallow set of %d oids, limit %d", n, maxEntries)
	}
	if len(data) > maxBytes {
		return objects.Errorf(objects.ReasonShallowOversized, "shallow file of %d bytes, limit %d", len(data), maxBytes)
	}
	if err := s.writeFileAtomic(filepath.Join(s.root, shallowName), data, 0o644); err != nil {
		return fmt.Errorf("shallow file: %w", err)
	}
	return nil
}

// recoverShallowGuard removes shallow.lock, and the temporary files of the
// rewrite it guarded, if the writer holding it is dead. It returns nil
// when the guard is gone, and a *LockedError when a live or a foreign
// writer holds it. The exclusive gate makes the answer exact (see
// recoverGuard).
func (s *Store) recoverShallowGuard(ctx context.Context) error {
	g, err := s.lockGate(ctx, true)
	if err != nil {
		return err
	}
	defer g.unlock()
	path := filepath.Join(s.root, shallowLock)
	if _, err := s.removeDeadShallow(path, false); err != nil {
		return fmt.Errorf("shallow file: recover the guard of a dead writer: %w", err)
	}
	if err := s.lockedIfPresent("shallow", path); err != nil {
		return err
	}
	if _, err := s.removeShallowTemps(); err != nil {
		return fmt.Errorf("shallow file: %w", err)
	}
	return nil
}

// removeShallowTemps removes the temporary files of shallow rewrites. The
// caller holds the gate exclusive and has seen no shallow.lock: the files
// are written only under it, so no live writer owns them.
func (s *Store) removeShallowTemps() ([]string, error) {
	temps, err := filepath.Glob(filepath.Join(s.root, ".tmp-"+shallowName+"-*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, t := range temps {
		if err := s.fs.remove(t); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("refs: remove shallow temporary file: %w", err)
		}
		removed = append(removed, s.relPath(t))
	}
	return removed, nil
}
