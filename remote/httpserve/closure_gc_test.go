package httpserve_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
)

// TestRefCheckHoldsOffPrune: a gc that prunes between a ref update's
// history check and the ref's move must not find the server outside the
// writers' lock. The tenant's objects were written by another handle
// (another process, or this server before a restart), so the server has
// written nothing yet; the hook plays gc's prune at the worst moment: it
// takes the writers' lock exclusive as prune does and, when it gets it,
// deletes an unreferenced event as prune may. Before, the server took the
// lock only at the move, so the prune ran, the move followed, and the ref
// named a run whose event was gone.
func TestRefCheckHoldsOffPrune(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, httpserve.Config{})
	dir := filepath.Join(ts.root, "tenants", "acme")
	tenant, _, err := plumbing.Init(dir, objects.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	a := tenant.Algo()
	blob, e1, e2, run := twoEventRun(t, a, "out", "g")
	if err := objects.PutAll(ctx, tenant.Objects(), []*objects.Object{blob, e1, e2, run}); err != nil {
		t.Fatal(err)
	}
	// Closed: this process holds no share of the writers' lock.
	if err := tenant.Close(); err != nil {
		t.Fatal(err)
	}
	repoDir := filepath.Join(dir, plumbing.DirName)
	rel, err := objects.LoosePath(e1.ID)
	if err != nil {
		t.Fatal(err)
	}
	var pruned atomic.Bool // set in the server's goroutine
	defer httpserve.SetRefCheckedHook(func(string) {
		fl := flock.New(filepath.Join(repoDir, "objects", "locks", "writers"))
		ok, err := fl.TryLock()
		if err != nil || !ok {
			return // a writer holds it: prune waits
		}
		defer fl.Unlock()
		if err := os.Remove(filepath.Join(repoDir, filepath.FromSlash(rel))); err != nil {
			t.Errorf("prune %s: %v", e1.ID, err)
		}
		pruned.Store(true)
	})()
	c := ts.client(t, httpclient.Options{})
	ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, run.ID)
	refs, rerr := c.Refs(ctx)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if refs["heads/main"] == run.ID {
		if pruned.Load() {
			t.Fatalf("heads/main moved to %s after a prune deleted its event %s (update: %v %v)", run.ID, e1.ID, ok, err)
		}
		check, err := plumbing.Open(repoDir)
		if err != nil {
			t.Fatal(err)
		}
		defer check.Close()
		for _, id := range []objects.OID{blob.ID, e1.ID, e2.ID} {
			if _, err := check.Objects().Get(ctx, id); errors.Is(err, objects.ErrNotFound) {
				t.Fatalf("heads/main names a run whose %s is gone", id)
			}
		}
	} else if err == nil && ok {
		t.Fatalf("update said moved, refs: %v", refs)
	}
	if pruned.Load() {
		t.Fatal("the prune ran while a ref update was between its check and its move")
	}
}
