package index

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestCrashLeftoversAreNotMisread: what a writer that died at any step of
// a layer write or a compaction leaves (a layer no chain names, a
// half-written temporary file, a new base under the old chain, a new
// chain over layers not yet deleted) is read as the catalog the last
// complete step left: fresh or stale, never corrupt nor rebuilt; the next
// update writes a layer or base that reads as a build does and deletes
// the layers no chain names and the dead writers' temporary files (these
// stayed forever before, a catalog-sized one for a crashed compaction).
func TestCrashLeftoversAreNotMisread(t *testing.T) {
	keepLayers(t)
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	dir := filepath.Join(f.root, filepath.FromSlash(LayerDir))
	chain := filepath.Join(dir, layerChainFile)
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(p string, b []byte) {
		os.Remove(p)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evs := []objects.OID{f.e1, f.e2}
	appendOne := func(label string) {
		evs = append(evs, f.event(label, "", evs[len(evs)-1]))
		f.setRef("heads/main", f.run(evs))
	}
	check := func(step string, want string) {
		t.Helper()
		st, err := f.ix.Status(f.ctx)
		if err != nil || st.State != want {
			t.Fatalf("%s: status %+v, %v; want %s", step, st, err, want)
		}
		rep, err := f.ix.Update(f.ctx)
		if err != nil || rep.Action == ActionRebuilt {
			t.Fatalf("%s: update %+v, %v", step, rep, err)
		}
		if !bytes.Equal(f.merged(), f.scratch()) {
			t.Fatalf("%s: the catalog differs from a build", step)
		}
	}

	// A layer written, its chain not: the layer is an orphan.
	oldChain := read(chain)
	appendOne("a")
	f.catalog()
	if len(f.layerPaths()) != 1 {
		t.Fatalf("%d layers, want 1", len(f.layerPaths()))
	}
	orphan := f.layerPaths()[0]
	orphanBytes := read(orphan)
	write(chain, oldChain)
	temps := []string{filepath.Join(dir, ".tmp-chain-123"), filepath.Join(dir, ".tmp-"+filepath.Base(orphan)+"-456"),
		filepath.Join(filepath.Dir(f.ix.Path()), ".tmp-"+File+"-789")}
	for _, p := range temps {
		write(p, orphanBytes[:10])
	}
	check("orphan layer", StateStale)

	// A compaction: the new base written, the old chain and its layers
	// still there; then the new chain written, the layers not deleted.
	appendOne("b")
	f.catalog()
	layers := f.layerPaths()
	if len(layers) == 0 {
		t.Fatal("no layers to compact")
	}
	saved := map[string][]byte{}
	for _, p := range layers {
		saved[p] = read(p)
	}
	chainBefore := read(chain)
	if err := f.ix.saveBase(mustStack(t, f.ix).d); err != nil {
		t.Fatal(err)
	}
	afterChain := read(chain)
	write(chain, chainBefore)
	for p, b := range saved {
		write(p, b)
	}
	check("new base under the old chain", StateFresh)
	write(chain, afterChain)
	for p, b := range saved {
		write(p, b)
	}
	check("new chain over undeleted layers", StateFresh)
	appendOne("c")
	check("after the leftovers", StateStale)
	named := map[string]bool{}
	s := mustStack(t, f.ix)
	for _, n := range s.layers {
		named[filepath.Join(dir, layerFile(n))] = true
	}
	for _, p := range f.layerPaths() {
		if !named[p] {
			t.Fatalf("layer %s, which no chain names, outlived an update", filepath.Base(p))
		}
	}
	for _, p := range temps {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("a dead writer's %s outlived an update (%v)", filepath.Base(p), err)
		}
	}
}

func mustStack(t *testing.T, ix *Index) *stack {
	t.Helper()
	s, err := ix.readStack()
	if err != nil || s == nil {
		t.Fatalf("read catalog: %v", err)
	}
	return s
}
