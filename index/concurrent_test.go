package index

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestConcurrentUpdates runs writers that each add refs and evaluations and
// update the catalog, alongside readers, some through separate handles as
// separate processes would. Whatever order the renames land in, the file
// always decodes, and the next load converges on exactly the rebuild.
func TestConcurrentUpdates(t *testing.T) {
	keepLayers(t)
	r := newTestRepo(t, objects.BLAKE3)
	const writers, rounds = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*2)
	for w := range writers {
		ix := New(r.root, r.algo, r.store, r.refs, Options{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			var prev objects.OID
			for i := range rounds {
				var parents []objects.OID
				if !prev.IsZero() {
					parents = append(parents, prev)
				}
				e := r.event(fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("d%d-%d", w, i), parents...)
				prev = e
				run := r.run([]objects.OID{e})
				r.setRef(fmt.Sprintf("heads/w%d", w), run)
				r.evaluate(run, fmt.Sprintf("w%d", w), score("s", float64(i)))
				if _, err := ix.Update(r.ctx); err != nil {
					errs <- err
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range rounds {
				if _, _, err := ix.Catalog(r.ctx); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := decode(r.fileBytes()); err != nil {
		t.Fatalf("catalog after concurrent writers: %v", err)
	}
	c, _ := r.catalog()
	converged := r.merged()
	if _, err := r.ix.Rebuild(r.ctx); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(converged, r.merged()) {
		t.Fatal("the catalog after concurrent updates differs from a rebuild")
	}
	if n := len(c.Evaluations("s", 0, Filter{})); n != writers*rounds {
		t.Fatalf("%d evaluations indexed, want %d", n, writers*rounds)
	}
	if n := len(c.RunsByRef("heads")); n != writers {
		t.Fatalf("%d runs by ref, want %d", n, writers)
	}
	for w := range writers {
		if got := c.Evidence(TableGateInput, fmt.Sprintf("d%d-%d", w, rounds-1)); len(got) != 1 {
			t.Fatalf("evidence of writer %d's last event: %v", w, got)
		}
	}
}
