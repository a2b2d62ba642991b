package runs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// checkBase refuses, before record runs its command, a run the append
// could not extend: its object must be a run with valid links (events,
// roots and tips well-formed oids, roots and tips among events, manifests
// and *_blob members blob oids: SplitRunBody and RunBody.CheckLinks) and
// each of its tips must be a readable, intact event. It fills h's roots
// and tips. That costs the run object and its tips, never the older
// events, and it is enough: the append reads nothing else. The new event
// names the tips as parents, and the new run is checked against the run
// object alone (Repo.WriteAppend), so an older event's damage cannot make
// the append fail after the command ran. Such damage is fsck's to find, as
// git commit does not re-read history before committing.
func checkBase(ctx context.Context, g objects.Getter, h *head) error {
	if !h.exists() {
		return nil
	}
	if err := h.body.CheckLinks(); err != nil {
		return fmt.Errorf("ref %s: run %s: %w", h.ref, h.id(), err)
	}
	var err error
	if h.roots, err = oidList(objects.ObjectValue(objects.Member{Key: "roots", Value: h.member("roots")}), "roots"); err != nil {
		return fmt.Errorf("ref %s: run %s: %w", h.ref, h.id(), err)
	}
	if h.tips, err = oidList(objects.ObjectValue(objects.Member{Key: "tips", Value: h.member("tips")}), "tips"); err != nil {
		return fmt.Errorf("ref %s: run %s: %w", h.ref, h.id(), err)
	}
	for _, id := range h.tips {
		_, err := g.Get(ctx, id)
		if err == nil {
			continue
		}
		if err := plumbing.Absent(id, err); err != nil {
			return fmt.Errorf("ref %s: run %s: tip %s: %w", h.ref, h.id(), id, err)
		}
		// A shallow fetch (depth 0) leaves a run's tips out.
		return fmt.Errorf("ref %s: run %s: tip %s is not stored: %w", h.ref, h.id(), id, ErrBeyondShallow)
	}
	return nil
}

// busyWait is how long record waits for a live writer's guard on the run's
// ref to change hands before refusing to run the command. A ref update
// holds its guard for milliseconds, so one guard held this long belongs to
// a stuck writer; guards that come and go are concurrent appends, which
// record joins (appendRecorded).
const busyWait = 5 * time.Second

// busyPoll is the interval of that wait.
const busyPoll = 20 * time.Millisecond

// probeFunc checks that new files can be created in a directory.
type probeFunc func(dir string) error

// probeWritable creates and removes a temporary file in dir: the only
// honest test of writability (permissions, read-only mounts, ACLs and
// immutable directories all show). The ".tmp-" prefix is the one every
// reader skips as a writer's temporary, so a crash between the create and
// the remove leaves a harmless leftover that fsck --remove-stale clears.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".tmp-writable-*")
	if err != nil {
		return err
	}
	name := f.Name()
	return errors.Join(f.Close(), os.Remove(name))
}

// checkWritable probes every directory an append to ref creates files in:
// objects/pack/ where appends write storage packs (Repo.AppendsToPacks),
// else the loose object directories of the blobs, the event and the run, the
// ref's directory, its reflog's directory and refs-txn/ (the ref writers'
// gate). A directory not created yet is represented by its nearest
// existing ancestor inside the repository, where it would be made.
func checkWritable(r *plumbing.Repo, ref string, probe probeFunc) error {
	if probe == nil {
		probe = probeWritable
	}
	root := r.Root()
	rel := filepath.FromSlash(ref)
	objDirs := []string{
		filepath.Join(root, "objects", "blob"),
		filepath.Join(root, "objects", "event"),
		filepath.Join(root, "objects", "run"),
	}
	if r.AppendsToPacks() {
		objDirs = []string{filepath.Join(root, "objects", "pack")}
	}
	dirs := append(objDirs,
		filepath.Dir(filepath.Join(root, "refs", rel)),
		filepath.Dir(filepath.Join(root, "logs", rel)),
		filepath.Join(root, "refs-txn"),
	)
	seen := map[string]bool{}
	for _, d := range dirs {
		d = existingAncestor(root, d)
		if seen[d] {
			continue
		}
		seen[d] = true
		if err := probe(d); err != nil {
			return fmt.Errorf("%w: cannot create a file in %s (%w); nothing was run", ErrNotWritable, d, err)
		}
	}
	return nil
}

// existingAncestor returns dir, or its nearest ancestor that exists,
// stopping at root.
func existingAncestor(root, dir string) string {
	for dir != root && len(dir) > len(root) {
		if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		dir = filepath.Dir(dir)
	}
	return root
}

// waitRefFree returns once no live writer holds ref's guard, or the guard
// changed hands (other writers are making progress), and refuses with
// ErrRefBusy when one live writer held it for all of busyWait. A dead
// writer's guard is not waited for: the ref update recovers it.
func waitRefFree(ctx context.Context, r *plumbing.Repo, ref string) error {
	var first *refs.Guard
	deadline := time.Now().Add(busyWait)
	for {
		g, err := liveGuard(ctx, r, ref)
		if err != nil {
			return fmt.Errorf("ref %s: %w", ref, err)
		}
		if g == nil || (first != nil && !g.ModTime.Equal(first.ModTime)) {
			return nil
		}
		if first == nil {
			first = g
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ref %s: %w: its guard %s stayed held for %s; nothing was run; retry once that writer has finished", ref, ErrRefBusy, g.Path, busyWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(busyPoll):
		}
	}
}

// liveGuard returns ref's guard when a live writer holds it, else nil.
func liveGuard(ctx context.Context, r *plumbing.Repo, ref string) (*refs.Guard, error) {
	guards, err := r.Refs().StaleGuards(ctx)
	if err != nil {
		return nil, err
	}
	for i := range guards {
		if g := &guards[i]; g.Kind == refs.GuardRef && g.Ref == ref && g.Alive {
			return g, nil
		}
	}
	return nil, nil
}
