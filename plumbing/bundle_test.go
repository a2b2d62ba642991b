package plumbing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// writeFrame writes a frame to a temporary file.
func writeFrame(t *testing.T, frame []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.bundle")
	if err := os.WriteFile(p, frame, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBundleRoundTrip: a bundle is a valid plain TINEPACK3 frame (the
// OpenTine reader's view: objects.ReadPack with its manifest key set);
// unpack installs its refs and leaves the ref list out of the store.
func TestBundleRoundTrip(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, a *Repo) {
		ctx := context.Background()
		run, _ := putChainRun(t, a, "x", 2)
		if err := a.Refs().Create(ctx, "heads/main", run, "t"); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "b.bundle")
		res, err := Pack(ctx, a, PackOptions{Refs: true, Output: out})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Refs) != 1 || res.Refs[0].Name != "heads/main" || res.Objects != 4 {
			t.Fatalf("pack %+v", res)
		}
		frame, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := objects.InspectPack(frame, a.Algo())
		if err != nil {
			t.Fatalf("a bundle must read as a plain pack: %v", err)
		}
		if len(pf.Objects) != 4 {
			t.Fatalf("frame holds %d objects", len(pf.Objects))
		}
		b := newRepo(t, a.Algo())
		got, err := Unpack(ctx, b, UnpackOptions{Path: out})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Bundle || len(got.Refs) != 1 || got.Refs[0].Status != RefCreated || got.Objects != 3 {
			t.Fatalf("unpack %+v", got)
		}
		if id, err := b.Refs().Read(ctx, "heads/main"); err != nil || id != run {
			t.Fatalf("heads/main = %s, %v", id, err)
		}
		if n := fsckClean(t, b).Objects; n != 3 {
			t.Errorf("B holds %d objects, want the run and its 2 events", n)
		}
	})
}

// TestUnpackRefusesBadRefLists: a ref list that names an object it does
// not link, names a bad ref, or comes twice refuses the whole frame
// before anything is written.
func TestUnpackRefusesBadRefLists(t *testing.T) {
	ctx := context.Background()
	a := newRepo(t, objects.BLAKE3)
	run, _ := putChainRun(t, a, "x", 2)
	closure, _, err := objects.PackClosure(ctx, a.Objects(), []objects.OID{run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := func(evidence, refsJSON string) *objects.Object {
		return jsonObject(t, a.Algo(), objects.TypeAnnotation, fmt.Sprintf(
			`{"evidence_ids":[%s],"value":{"format":"tine-bundle/1","refs":%s}}`, evidence, refsJSON))
	}
	ev := `"` + run.String() + `"`
	other, _ := putChainRun(t, a, "y", 1)
	cases := map[string][]*objects.Object{
		"not linked": {list(ev, `{"heads/main":"`+run.String()+`","heads/x":"`+other.String()+`"}`)},
		"bad name":   {list(ev, `{"heads/../x":"`+run.String()+`"}`)},
		"not a name": {list(ev, `{"refs/heads/main":"`+run.String()+`"}`)},
		"twice":      {list(ev, `{"heads/main":"`+run.String()+`"}`), list(ev, `{"heads/other":"`+run.String()+`"}`)},
	}
	for name, extra := range cases {
		t.Run(name, func(t *testing.T) {
			objs := append(append([]*objects.Object{}, closure...), extra...)
			frame, _, err := objects.WritePack(objs, nil)
			if err != nil {
				t.Fatal(err)
			}
			b := newRepo(t, objects.BLAKE3)
			_, err = Unpack(ctx, b, UnpackOptions{Path: writeFrame(t, frame)})
			if !errors.Is(err, ErrBadBundle) {
				t.Fatalf("err = %v", err)
			}
			if res := fsckClean(t, b); res.Objects != 0 || res.Refs != 0 {
				t.Errorf("a refused bundle wrote %d objects, %d refs", res.Objects, res.Refs)
			}
		})
	}
}

// TestUnpackRefStatuses: fast-forward, diverged (kept), up-to-date, tags
// that differ (diverged), promotions (skipped).
func TestUnpackRefStatuses(t *testing.T) {
	ctx := context.Background()
	a := newRepo(t, objects.BLAKE3)
	short, events := putChainRun(t, a, "x", 1)
	long := put(t, a, chainRun(t, a.Algo(), append(events, putEvent(t, a, "x1", events[len(events)-1]))))
	b := newRepo(t, objects.BLAKE3)
	// B holds the short run under every name, and a tag at another run.
	out0 := filepath.Join(t.TempDir(), "0.bundle")
	for _, n := range []string{"heads/ff", "heads/same", "heads/div", "promotions/p"} {
		if err := a.Refs().Create(ctx, n, short, "t"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Pack(ctx, a, PackOptions{Refs: true, Output: out0}); err != nil {
		t.Fatal(err)
	}
	if _, err := Unpack(ctx, b, UnpackOptions{Path: out0}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Refs().Read(ctx, "promotions/p"); !errors.Is(err, refs.ErrNotFound) {
		t.Fatalf("a bundle created a promotion: %v", err)
	}
	// B's div gets an event of its own.
	bEvents := append([]objects.OID{}, events...)
	bEvents = append(bEvents, putEvent(t, b, "mine", events[len(events)-1]))
	bRun := put(t, b, chainRun(t, b.Algo(), bEvents))
	if err := b.Refs().Update(ctx, "heads/div", bRun, short, "t"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"heads/ff", "heads/div"} {
		if err := a.Refs().Update(ctx, n, long, short, "t"); err != nil {
			t.Fatal(err)
		}
	}
	out1 := filepath.Join(t.TempDir(), "1.bundle")
	if _, err := Pack(ctx, a, PackOptions{Refs: true, Output: out1}); err != nil {
		t.Fatal(err)
	}
	got, err := Unpack(ctx, b, UnpackOptions{Path: out1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"heads/div": RefDiverged, "heads/ff": RefFastForward, "heads/same": RefUpToDate, "promotions/p": RefSkipped}
	for _, ri := range got.Refs {
		if want[ri.Name] != ri.Status {
			t.Errorf("%s: %s (%s), want %s", ri.Name, ri.Status, ri.Reason, want[ri.Name])
		}
	}
	if id, _ := b.Refs().Read(ctx, "heads/div"); id != bRun {
		t.Fatalf("diverged heads/div was overwritten: %s", id)
	}
	if id, _ := b.Refs().Read(ctx, "heads/ff"); id != long {
		t.Fatalf("heads/ff = %s, want %s", id, long)
	}
}
