package plumbing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// ageAllLoose makes every loose object d old.
func ageAllLoose(t *testing.T, r *Repo, d time.Duration) {
	t.Helper()
	err := r.Loose().List(context.Background(), func(id objects.OID) error {
		p, err := r.Loose().Path(id)
		if err == nil {
			age(t, p, d)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packAged writes objs as a pack whose files are d old.
func packAged(t *testing.T, r *Repo, objs []*objects.Object, d time.Duration) string {
	t.Helper()
	name, err := r.Packs().WritePack(context.Background(), objs, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".pack", ".idx"} {
		age(t, filepath.Join(r.Root(), "objects", "pack", name+ext), d)
	}
	return name
}

func TestGCPruneKeepsReachableAndYoung(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		packsOn(t, r)
		ctx := context.Background()
		a := r.Algo()
		blob := func(s string) *objects.Object { return objects.NewBlob(a, []byte(s)) }
		keep := storeChain(t, r, "heads/keep", false, 3)
		runA := keep[len(keep)-1]
		reflogOnly := storeChain(t, r, "heads/moved", false, 2)
		storeChain(t, r, "heads/moved", false, 1) // heads/moved moves on; the old run lives in the reflog
		_, unreachableRun := chainObjects(t, a, "gone", 2)
		if err := r.Loose().PutBatch(ctx, unreachableRun); err != nil {
			t.Fatal(err)
		}
		attest := func(target objects.OID) objects.OID {
			return put(t, r, jsonObject(t, a, objects.TypeAttestation, fmt.Sprintf(
				`{"claim":{"kind":"evaluation"},"evidence_ids":[],"signature":null,"signer":"ci","target_id":%q}`, target)))
		}
		attKeep, attGone := attest(runA), attest(unreachableRun[len(unreachableRun)-1].ID)
		oldLoose := put(t, r, blob("unreachable, old, loose"))
		ageAllLoose(t, r, 48*time.Hour)
		youngLoose := put(t, r, blob("unreachable, young, loose"))
		oldPacked, youngPacked := blob("unreachable, old, packed"), blob("unreachable, young, packed")
		packAged(t, r, []*objects.Object{oldPacked, blob("reachable? no: old packed too")}, 48*time.Hour)
		young := packAged(t, r, []*objects.Object{youngPacked}, time.Minute)
		youngTime := modTime(t, filepath.Join(r.Root(), "objects", "pack", young+".pack"))

		res, err := GC(ctx, r, GCOptions{Prune: true, PruneAge: 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		wantGone := []objects.OID{oldLoose, oldPacked.ID, attGone}
		for _, o := range unreachableRun {
			wantGone = append(wantGone, o.ID)
		}
		kept := append(append(append([]objects.OID{}, keep...), reflogOnly...), attKeep, youngLoose, youngPacked.ID)
		mustReadAll(t, r.Root(), kept)
		for _, id := range wantGone {
			if _, err := r.Objects().Get(ctx, id); !errors.Is(err, objects.ErrNotFound) {
				t.Errorf("%s survived prune: %v", id, err)
			}
		}
		if res.Pruned != len(wantGone)+1 || res.KeptYoung != 2 || res.CruftObjects != 1 || !res.Consolidated {
			t.Fatalf("gc result %+v", res)
		}
		cruft := modTime(t, filepath.Join(r.Root(), "objects", "pack", res.CruftPack+".pack"))
		if !cruft.Equal(youngTime) {
			t.Fatalf("cruft pack dated %v, want its source pack's %v", cruft, youngTime)
		}
		if ok, _ := r.Loose().Has(ctx, youngLoose); !ok {
			t.Fatal("the young unreachable loose object was packed or removed")
		}
		mustFsckClean(t, r)

		// Two days later the young ones have aged out; reachable ones stay.
		later := func() time.Time { return time.Now().Add(48 * time.Hour) }
		res, err = GC(ctx, r, GCOptions{Prune: true, PruneAge: 24 * time.Hour, Now: later})
		if err != nil {
			t.Fatal(err)
		}
		if res.Pruned != 2 || res.KeptYoung != 0 || res.CruftPack != "" {
			t.Fatalf("later gc %+v", res)
		}
		mustReadAll(t, r.Root(), kept[:len(kept)-2])
		mustFsckClean(t, r)
	})
}

func TestGCPruneRefusesBrokenGraph(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	ids := storeChain(t, r, "heads/a", false, 3)
	p, _ := r.Loose().Path(ids[1]) // an event the run links to
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	stray := put(t, r, objects.NewBlob(r.Algo(), []byte("stray")))
	ageAllLoose(t, r, time.Hour)
	if _, err := GC(context.Background(), r, GCOptions{Prune: true}); err == nil {
		t.Fatal("gc --prune ran over a missing reachable object")
	}
	if ok, _ := r.Loose().Has(context.Background(), stray); !ok {
		t.Fatal("a refused gc deleted an object")
	}
}

// modTime returns a file's modification time.
func modTime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}
