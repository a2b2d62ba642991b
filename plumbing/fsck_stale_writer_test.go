package plumbing

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// TestFsckRemoveStaleAnyAgeWaitsForWriters: a pack writer stopped between
// its two renames (the pack in place, the index still a temp file) while
// another writer process holds the writers' lock; `fsck --remove-stale
// --stale-after 0s` must wait for the writers (and say so) instead of
// taking the writer's files for a crash's leftovers (it renamed the temp
// index itself, so the writer's own rename, and its write, failed). Once
// the writer has committed, the pack reads whole and fsck finds nothing
// wrong.
func TestFsckRemoveStaleAnyAgeWaitsForWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	if os.Getenv(lockChildEnv) != "" || os.Getenv(gcCrashEnv) != "" || os.Getenv(crashEnv) != "" {
		t.Skip("in child mode")
	}
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	run, all := chainObjects(t, r.Algo(), "window", 3)
	name, err := r.Packs().WritePack(ctx, all, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The commit window of pack.Writer.Commit: the pack renamed, the
	// index not yet.
	dir := r.Packs().Dir()
	idxFile := filepath.Join(dir, name+".idx")
	tmp := filepath.Join(dir, objects.TempPrefix+"idx-window")
	if err := os.Rename(idxFile, tmp); err != nil {
		t.Fatal(err)
	}

	child := startLockWriter(t, r.Root())
	var notices []string
	var commitErr error
	committed := false
	commit := func() {
		if !committed {
			committed = true
			// The stopped writer's second rename, then the other
			// writer's exit, which frees the writers' lock.
			commitErr = os.Rename(tmp, idxFile)
			child.proceed()
		}
	}
	fr, err := OpenWith(r.Root(), OpenOptions{Notice: func(msg string) {
		notices = append(notices, msg)
		if strings.Contains(msg, "writers") {
			commit()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	res, err := Fsck(ctx, fr, FsckOptions{RemoveStale: true, StaleAfter: 0})
	commit() // an fsck that did not wait must not leave the writer hanging
	if err != nil {
		t.Fatalf("fsck: %v", err)
	}
	child.finish(t)
	if len(notices) == 0 || commitErr != nil {
		t.Fatalf("fsck --remove-stale at any age did not wait for the writers: notices %q; the writer's index rename: %v", notices, commitErr)
	}
	if _, err := os.Stat(idxFile); err != nil {
		t.Fatalf("the committed pack's index: %v", err)
	}
	if res.RemovedTemp != 0 || !res.OK() {
		t.Fatalf("fsck removed %d leftovers of a running writer, problems %+v", res.RemovedTemp, res.Problems)
	}
	setRef(t, r, "heads/window", run.ID)
	ids := make([]objects.OID, len(all))
	for i, o := range all {
		ids[i] = o.ID
	}
	mustReadAll(t, r.Root(), ids)
	names, err := fr.Packs().Packs()
	if err != nil || !slices.Contains(names, name) {
		t.Fatalf("packs %v (%v), want %s among them", names, err, name)
	}
	mustFsckClean(t, fr)
}
