package pack

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// The tests below interleave, in one process and deterministically, a
// commit with a removal of a pack of the same name (lock.go): each stops
// one side inside its window (between its two renames or unlinks) through
// a hook and runs the other side until it ends or waits for the directory
// lock.

// spAlongside runs f in a goroutine and returns once f has ended or is
// waiting for the directory lock, with a function that waits for f's end.
func spAlongside(f func()) (wait func()) {
	blocked := make(chan struct{}, 1)
	done := make(chan struct{})
	lockWaitHook = func(bool) {
		select {
		case blocked <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-blocked:
	case <-done:
	}
	return func() {
		<-done
		lockWaitHook = nil
	}
}

// spInWindow runs op with *hook set so that, when op reaches the window
// of the pack name, other runs alongside it (spAlongside); it reports
// whether op stopped there, once other has ended.
func spInWindow(hook *func(string), name string, op, other func()) bool {
	var wait func()
	*hook = func(n string) {
		if n != name || wait != nil {
			return
		}
		wait = spAlongside(other)
	}
	op()
	*hook = nil
	if wait == nil {
		return false
	}
	wait()
	return true
}

// spTwoPacks writes six test objects as two packs in a fresh directory,
// the first three in the pack named name, and opens a store on them.
func spTwoPacks(t *testing.T, a objects.Algo) (dir string, objs []*objects.Object, name string, s *Store) {
	t.Helper()
	dir = t.TempDir()
	objs = spTestObjects(t, a, 6)
	name = spWriteTestPack(t, dir, a, objs[:3], Options{})
	spWriteTestPack(t, dir, a, objs[3:], Options{})
	return dir, objs, name, spOpenTestPacks(t, dir, a)
}

// spCheckPairs fails the test unless every pack file in dir has its index
// and every index its pack file.
func spCheckPairs(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{}
	for _, e := range ents {
		if n, ext, ok := spFileName(e.Name()); ok {
			files[n] = append(files[n], ext)
		}
	}
	for n, exts := range files {
		if len(exts) != 2 {
			t.Errorf("%s has only its %s", n, exts[0])
		}
	}
}

// spCheckAll opens dir afresh and reads every object of objs, and fails
// the test if any pack reads as damaged.
func spCheckAll(t *testing.T, dir string, a objects.Algo, objs []*objects.Object) {
	t.Helper()
	s := spOpenTestPacks(t, dir, a)
	for _, o := range objs {
		spCheckGet(t, s, o)
	}
	if d := spDamaged(t, s); len(d) != 0 {
		t.Fatalf("damaged: %v", d)
	}
}

// TestStoragePackReloadBesideCommit: a store reloads while a writer in
// another process is between the two renames of its commit, the pack
// file in place and its index not yet. The reload waits for the commit
// and sees the new pack whole; it does not report a pack without its
// index (before, Damaged named it for that moment, and fsck with it).
func TestStoragePackReloadBesideCommit(t *testing.T) {
	a := objects.BLAKE3
	dir, objs, _, reader := spTwoPacks(t, a)
	fresh := []*objects.Object{objects.NewBlob(a, []byte("committed while the reader reloads\n"))}
	name, err := spCommit(t.TempDir(), a, fresh) // its name, by content
	if err != nil {
		t.Fatal(err)
	}
	var d []Damaged
	var reloadErr error
	commit := func() { _, err = spCommit(dir, a, fresh) }
	reload := func() {
		if reloadErr = reader.Reload(); reloadErr == nil {
			d, reloadErr = reader.Damaged()
		}
	}
	if !spInWindow(&commitWindowHook, name, commit, reload) {
		t.Fatalf("the commit of %s (%v) did not stop between its renames", name, err)
	}
	if err != nil || reloadErr != nil {
		t.Fatalf("commit %v, reload %v", err, reloadErr)
	}
	if len(d) != 0 {
		t.Fatalf("a reload beside a commit reports damage: %v", d)
	}
	for _, o := range append(objs, fresh...) {
		spCheckGet(t, reader, o)
	}
}

// TestStoragePackCommitBesideMerge: a writer commits a pack whose name
// (its content) is that of a pack a merge in another process is folding
// into a bigger one, and the merge removes the old pair while the writer
// is between its two renames. The store ends with whole pairs only (here
// the merged pack alone) and every object readable. Before, the merge
// deleted the writer's fresh pack file and the old index, and the
// writer's index was then renamed in beside no pack: an index without
// its pack, which fsck reports.
func TestStoragePackCommitBesideMerge(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	dir, objs, name, merger := spTwoPacks(t, a)
	var again string
	var err error
	var res MergeResult
	var mergeErr error
	commit := func() { again, err = spCommit(dir, a, objs[:3]) }
	merge := func() {
		if mergeErr = merger.Reload(); mergeErr == nil {
			res, mergeErr = merger.MergeSmall(ctx, 0)
		}
	}
	if !spInWindow(&commitWindowHook, name, commit, merge) {
		t.Fatalf("the commit of %s (%v) did not stop between its renames", again, err)
	}
	if err != nil || again != name {
		t.Fatalf("commit beside the merge: %s, %v; want %s", again, err, name)
	}
	if mergeErr != nil || !slices.Contains(res.Merged, name) {
		t.Fatalf("merge beside the commit: merged %v, %v", res.Merged, mergeErr)
	}
	spCheckPairs(t, dir)
	spCheckAll(t, dir, a, objs)
}

// TestStoragePackMergeBesideCommit: a merge removes a pack it folded into
// a bigger one, and between its two unlinks a writer in another process
// commits a pack of the same name. The store ends with whole pairs only
// (here the merged pack and the writer's) and every object readable.
// Before, the writer's two renames ran in the window and the merge then
// deleted the writer's new index: a pack without its index, which fsck
// reports and only index-pack repairs.
func TestStoragePackMergeBesideCommit(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	dir, objs, name, merger := spTwoPacks(t, a)
	var res MergeResult
	var err error
	var again string
	var commitErr error
	merge := func() { res, err = merger.MergeSmall(ctx, 0) }
	commit := func() { again, commitErr = spCommit(dir, a, objs[:3]) }
	if !spInWindow(&removeWindowHook, name, merge, commit) {
		t.Fatalf("the merge (%v, %v) did not stop between the unlinks of %s", res, err, name)
	}
	if err != nil || !slices.Contains(res.Merged, name) {
		t.Fatalf("merge beside the commit: merged %v, %v", res.Merged, err)
	}
	if commitErr != nil || again != name {
		t.Fatalf("commit beside the merge: %s, %v; want %s", again, commitErr, name)
	}
	spCheckPairs(t, dir)
	spCheckAll(t, dir, a, objs)
}

// TestStoragePackRemoveGarbageBesideCommit: RemoveGarbage lists an index
// whose pack a killed gc had removed, and before it deletes the index a
// writer commits the same pack again (its objects written anew). The
// writer's pack keeps its index and every object reads. Before,
// RemoveGarbage deleted the writer's new index on the strength of its
// old listing: the only copy of the objects was then a pack without an
// index, and every read of them failed until tine index-pack.
func TestStoragePackRemoveGarbageBesideCommit(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	dir := t.TempDir()
	objs := spTestObjects(t, a, 4)
	name := spWriteTestPack(t, dir, a, objs, Options{})
	if err := os.Remove(filepath.Join(dir, name+".pack")); err != nil {
		t.Fatal(err)
	}
	s := spOpenTestPacks(t, dir, a)
	var n int
	var err error
	var again string
	var commitErr error
	remove := func() { n, err = s.RemoveGarbage(ctx, time.Now().Add(-time.Hour)) }
	commit := func() { again, commitErr = spCommit(dir, a, objs) }
	if !spInWindow(&removeWindowHook, name, remove, commit) {
		t.Fatalf("RemoveGarbage (%d, %v) did not stop before deleting %s.idx", n, err, name)
	}
	if err != nil {
		t.Fatalf("RemoveGarbage beside a commit: %v", err)
	}
	if commitErr != nil || again != name {
		t.Fatalf("commit beside RemoveGarbage: %s, %v; want %s", again, commitErr, name)
	}
	spCheckPairs(t, dir)
	spCheckAll(t, dir, a, objs)
}
