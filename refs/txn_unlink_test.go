package refs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestCommitRemovesOnlyWhatIsThere: a committed update renames its
// staging file over the ref, and the ref keeps its directory, so releasing
// the guards removes only the guards: no unlink of a staging file already
// renamed, none of a staging file before it is created, no rmdir of a
// directory that holds the ref. These failing removals were six system
// calls per ref update (over 6,000 in a 1,000-iteration loop). A failed
// update still gets the full cleanup: no staging file, no guard, no
// directory it made is left.
func TestCommitRemovesOnlyWhatIsThere(t *testing.T) {
	for _, o := range syncOrders {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s, g := newTestStore(t, objects.BLAKE3)
			rec := &faultFS{root: s.root}
			faultStore(s, rec, o.order)
			a, b, c := g.run(objects.BLAKE3, "a"), g.run(objects.BLAKE3, "b"), g.run(objects.BLAKE3, "c")
			mustCreate(t, s, "experiments/loop/root", a)
			for i, id := range []objects.OID{b, c, a, b} {
				prev := []objects.OID{a, b, c, a}[i]
				if err := s.Update(ctx, "experiments/loop/root", id, prev, "t"); err != nil {
					t.Fatal(err)
				}
			}
			tx := s.NewTransaction("t")
			tx.Create("experiments/loop/b1", a)
			tx.Create("experiments/deep/x/y", b)
			tx.Update("experiments/loop/root", c, ExpectValue(b))
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if len(rec.failedRemoves) != 0 {
				t.Fatalf("removals of what was not there: %v", rec.failedRemoves)
			}
			// A refused update (stale expectation) in a directory it had to
			// make leaves nothing behind.
			err := s.Update(ctx, "experiments/fresh/dir/ref", a, b, "t")
			if err == nil {
				t.Fatal("an update with a stale expectation succeeded")
			}
			if _, err := os.Lstat(filepath.Join(s.root, "refs", "experiments", "fresh")); !os.IsNotExist(err) {
				t.Fatalf("a refused update left its directory: %v", err)
			}
			// A dead writer's staging file is still replaced.
			staging := filepath.Join(s.root, "refs", "experiments", "loop", "root"+stagingSuffix)
			if err := os.WriteFile(staging, []byte("junk of a dead writer\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(ctx, "experiments/loop/root", a, c, "t"); err != nil {
				t.Fatalf("update beside a dead writer's staging file: %v", err)
			}
			if _, err := os.Lstat(staging); !os.IsNotExist(err) {
				t.Fatalf("the staging file stayed: %v", err)
			}
			if id := mustRead(t, s, "experiments/loop/root"); id != a {
				t.Fatalf("ref holds %s, want %s", id, a)
			}
		})
	}
}
