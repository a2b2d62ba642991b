package refs

import (
	"context"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestReflogRowOrder records the steps of a one-ref update in each order
// and checks what makes a crash safe in it. Sequential: the row is written
// only after the ref's directory fsync, so on any file system a durable
// row names a durable value. Overlapped (file systems that keep metadata
// changes in order): the row is written after the rename, so it can only
// become durable with it, and the directory and the log are fsynced after
// the row, before the update returns, so the acknowledged update and its
// row are both durable. Before the overlapped order, the row was always
// written after the directory fsync, which the overlapped checks refuse.
func TestReflogRowOrder(t *testing.T) {
	const ref, log, refDir = "refs/tags/cas", "logs/tags/cas", "refs/tags"
	for _, o := range syncOrders {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s, g := newTestStore(t, objects.BLAKE3)
			a, b := g.run(objects.BLAKE3, "a"), g.run(objects.BLAKE3, "b")
			mustCreate(t, s, "tags/cas", a)
			rec := &faultFS{root: s.root}
			faultStore(s, rec, o.order)
			if err := s.Update(ctx, "tags/cas", b, a, "t"); err != nil {
				t.Fatal(err)
			}
			at := func(kind, path string) int {
				i := slices.Index(rec.steps, step{kind, path})
				if i < 0 {
					t.Fatalf("no %s %s in %v", kind, path, rec.steps)
				}
				return i
			}
			rename, write := at(stepRename, ref+stagingSuffix), at(stepWrite, log)
			dirSync, logSync := at(stepSyncDir, refDir), at(stepFsync, log)
			if rename > write {
				t.Fatalf("row written before the rename: %v", rec.steps)
			}
			switch o.order {
			case orderSequential:
				if dirSync > write {
					t.Fatalf("row written before the rename was durable: %v", rec.steps)
				}
			case orderOverlapped:
				if dirSync < write || logSync < write {
					t.Fatalf("the directory and the log are not fsynced together after the row: %v", rec.steps)
				}
			}
			if n := rec.count(stepFsync) + rec.count(stepSyncDir); n != 3 {
				t.Errorf("%d fsyncs, want 3 (staging file, directory, log): %v", n, rec.steps)
			}
			if rows := mustLog(t, s, "tags/cas"); len(rows) != 2 || rows[1].New != b || rows[1].Old != a {
				t.Fatalf("reflog %+v", rows)
			}
		})
	}
}
