package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// scratch returns the catalog a build from the objects alone writes.
func (r *testRepo) scratch() []byte {
	r.t.Helper()
	st, err := readState(r.ctx, r.store, r.refs)
	if err != nil {
		r.t.Fatal(err)
	}
	d, err := newBuilder(r.ctx, r.store, r.algo, DefaultRules, nil).build(st)
	if err != nil {
		r.t.Fatal(err)
	}
	return encode(d)
}

// layerPaths returns the layer files on disk.
func (r *testRepo) layerPaths() []string {
	r.t.Helper()
	m, err := filepath.Glob(filepath.Join(r.root, filepath.FromSlash(LayerDir), "*"+layerSuffix))
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// TestUpdatesWriteLayers: an update after an append, a fork, a ref
// deletion, an attestation or an annotation leaves the base file as it
// is and adds one small layer; base and layers read as exactly what a
// build from the objects holds; past MaxLayers the next update writes a
// new base and deletes the layers.
func TestUpdatesWriteLayers(t *testing.T) {
	keepLayers(t)
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	base := f.fileBytes()
	prev, run := f.e2, f.main
	events := []objects.OID{f.e1, f.e2}
	steps := []func(i int){
		func(i int) { // append to main
			prev = f.event(fmt.Sprintf("step-%d", i), fmt.Sprintf("d-%d", i), prev)
			events = append(events, prev)
			run = f.run(events)
			f.setRef("heads/main", run)
		},
		func(i int) { // fork main into a new ref
			e := f.event(fmt.Sprintf("fork-%d", i), "", events[0])
			f.setRef(fmt.Sprintf("heads/fork-%d", i), f.fork(run, []objects.OID{events[0], e}))
		},
		func(i int) { f.evaluate(run, fmt.Sprintf("s%d", i), score("accuracy", float64(i))) },
		func(i int) {
			f.put(objects.TypeAnnotation, objects.Member{Key: "target_id", Value: str(prev.String())},
				objects.Member{Key: "value", Value: str(fmt.Sprint(i))})
		},
		func(i int) { // drop a ref
			if err := f.refs.Delete(f.ctx, fmt.Sprintf("heads/fork-%d", i-3), refsAny()); err != nil {
				t.Fatal(err)
			}
		},
	}
	for i := 1; i <= MaxLayers; i++ {
		steps[i%len(steps)](i)
		rep, err := f.ix.Update(f.ctx)
		if err != nil || rep.Action != ActionUpdated || !rep.Saved {
			t.Fatalf("update %d: %+v, %v", i, rep, err)
		}
		if !bytes.Equal(f.fileBytes(), base) {
			t.Fatalf("update %d rewrote the base file", i)
		}
		st, err := f.ix.Status(f.ctx)
		if err != nil || st.State != StateFresh || st.Layers != i || len(f.layerPaths()) != i {
			t.Fatalf("status after update %d: %+v, %v (%d layer files)", i, st, err, len(f.layerPaths()))
		}
		if !bytes.Equal(f.merged(), f.scratch()) {
			t.Fatalf("after update %d the base and layers differ from a build", i)
		}
	}
	steps[0](MaxLayers + 1)
	if rep, err := f.ix.Update(f.ctx); err != nil || rep.Action != ActionUpdated {
		t.Fatalf("compacting update: %+v, %v", rep, err)
	}
	st, err := f.ix.Status(f.ctx)
	if err != nil || st.State != StateFresh || st.Layers != 0 || len(f.layerPaths()) != 0 {
		t.Fatalf("status after compaction: %+v, %v (%d layer files)", st, err, len(f.layerPaths()))
	}
	if !bytes.Equal(f.fileBytes(), f.scratch()) {
		t.Fatal("the compacted base differs from a build")
	}
}

// TestLayersOutgrowingTheBaseAreCompacted: with the default share, layers
// past an eighth of the base are folded into a new base.
func TestLayersOutgrowingTheBaseAreCompacted(t *testing.T) {
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	base := f.fileBytes()
	e4 := f.event("deploy", "digest-3", f.e2)
	f.setRef("heads/main", f.run([]objects.OID{f.e1, f.e2, e4}))
	if _, err := f.ix.Update(f.ctx); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(f.fileBytes(), base) || len(f.layerPaths()) != 0 {
		t.Fatalf("a layer over an eighth of a %d-byte base was kept", len(base))
	}
	if !bytes.Equal(f.fileBytes(), f.scratch()) {
		t.Fatal("the compacted base differs from a build")
	}
}

// TestDamagedLayerIsRebuilt: a layer or chain that fails a check is
// treated as a damaged catalog: reported corrupt, then rebuilt.
func TestDamagedLayerIsRebuilt(t *testing.T) {
	cases := []struct {
		name, reason string
		damage       func(t *testing.T, f *fixture, layer string)
	}{
		{"bit flip", "does not match its name", func(t *testing.T, f *fixture, layer string) {
			b, _ := os.ReadFile(layer)
			b[len(b)/2] ^= 0x10
			os.Chmod(layer, 0o644)
			os.WriteFile(layer, b, 0o644)
		}},
		{"missing", "layer the chain names is missing", func(t *testing.T, f *fixture, layer string) {
			os.Remove(layer)
		}},
		{"chain truncated", "layer chain", func(t *testing.T, f *fixture, layer string) {
			p := filepath.Join(filepath.Dir(layer), layerChainFile)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-1], 0o644)
		}},
		{"layer a symlink", "not a plain file", func(t *testing.T, f *fixture, layer string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			b, _ := os.ReadFile(layer)
			os.WriteFile(target, b, 0o644)
			os.Remove(layer)
			if err := os.Symlink(target, layer); err != nil {
				t.Skip("no symlinks:", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			keepLayers(t)
			f := newFixture(t, objects.BLAKE3)
			f.catalog()
			e4 := f.event("deploy", "digest-3", f.e2)
			f.setRef("heads/main", f.run([]objects.OID{f.e1, f.e2, e4}))
			f.catalog()
			if len(f.layerPaths()) != 1 {
				t.Fatalf("%d layers, want 1", len(f.layerPaths()))
			}
			tc.damage(t, f, f.layerPaths()[0])
			st, err := f.ix.Status(f.ctx)
			if err != nil || st.State != StateCorrupt || !strings.Contains(st.Reason, tc.reason) {
				t.Fatalf("status %+v, %v; want corrupt with %q", st, err, tc.reason)
			}
			_, rep := f.catalog()
			if rep.Action != ActionRebuilt || !strings.Contains(rep.Reason, tc.reason) {
				t.Fatalf("load: %+v", rep)
			}
			if !bytes.Equal(f.fileBytes(), f.scratch()) || len(f.layerPaths()) != 0 {
				t.Fatal("the rebuilt catalog differs from a build")
			}
		})
	}
}

// TestChainOfAnotherBaseIsIgnored: a writer that died between writing a
// new base and its chain leaves a chain naming the old base; its layers
// are not applied to the new base, which is updated, not rebuilt.
func TestChainOfAnotherBaseIsIgnored(t *testing.T) {
	keepLayers(t)
	f := newFixture(t, objects.BLAKE3)
	f.catalog()
	e4 := f.event("deploy", "digest-3", f.e2)
	f.setRef("heads/main", f.run([]objects.OID{f.e1, f.e2, e4}))
	f.catalog()
	// The new base a compaction writes first.
	if err := writeFile(f.ix.Path(), f.merged()); err != nil {
		t.Fatal(err)
	}
	e5 := f.event("ship", "", e4)
	f.setRef("heads/main", f.run([]objects.OID{f.e1, f.e2, e4, e5}))
	_, rep := f.catalog()
	if rep.Action != ActionUpdated || rep.ObjectsRead != 2 {
		t.Fatalf("load over a chain of another base: %+v", rep)
	}
	if !bytes.Equal(f.merged(), f.scratch()) {
		t.Fatal("the catalog differs from a build")
	}
}

// longRun stores a run of n events, each the parent of the next and each
// a gate-input evidence row, on heads/main and returns its events.
func (r *testRepo) longRun(n int) []objects.OID {
	r.t.Helper()
	evs := make([]objects.OID, 0, n+1)
	var prev []objects.OID
	for i := range n {
		e := r.event(fmt.Sprintf("e%d", i), fmt.Sprintf("digest-%d", i), prev...)
		evs, prev = append(evs, e), []objects.OID{e}
	}
	r.setRef("heads/main", r.run(evs))
	return evs
}

// TestAppendToLongRunIsALayer: the layer of an append to a long run holds
// the new event and its evidence row and the shared prefix's length, not
// the run's list or its rows, and reads back as a build does.
func TestAppendToLongRunIsALayer(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	evs := r.longRun(700)
	r.catalog()
	base := r.fileBytes()
	e := r.event("tail", "digest-t", evs[len(evs)-1])
	r.setRef("heads/main", r.run(append(evs, e)))
	_, rep := r.catalog()
	if rep.Action != ActionUpdated || rep.ObjectsRead != 2 {
		t.Fatalf("update: %+v", rep)
	}
	st, err := r.ix.Status(r.ctx)
	if err != nil || st.State != StateFresh || st.Layers != 1 || st.LayerBytes > 1024 || !bytes.Equal(r.fileBytes(), base) {
		t.Fatalf("status after an append: %+v, %v", st, err)
	}
	if !bytes.Equal(r.merged(), r.scratch()) {
		t.Fatal("base and layer differ from a build")
	}
}

// TestForkOntoAnotherRunsRefIsALayer: a ref that named an unrelated run
// and now names a fork of a long run is held as the fork source's prefix
// plus the fork's own event, as the README says ("whichever shares the
// longest prefix"), not as every event of the fork: before, only the
// ref's old run was tried, and the layer listed all 700 events.
func TestForkOntoAnotherRunsRefIsALayer(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	evs := r.longRun(700)
	other := r.event("other", "")
	r.setRef("heads/other", r.run([]objects.OID{other}))
	r.catalog()
	e := r.event("fork", "", evs[len(evs)-1])
	src, err := r.refs.Read(r.ctx, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	r.setRef("heads/other", r.fork(src, append(append([]objects.OID(nil), evs...), e)))
	if _, rep := r.catalog(); rep.Action != ActionUpdated {
		t.Fatalf("update: %+v", rep)
	}
	st, err := r.ix.Status(r.ctx)
	if err != nil || st.State != StateFresh || st.Layers != 1 || st.LayerBytes > 1024 {
		t.Fatalf("status after the fork: %+v, %v", st, err)
	}
	if !bytes.Equal(r.merged(), r.scratch()) {
		t.Fatal("base and layer differ from a build")
	}
}
