package plumbing

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// TestGCPruneNowKeepsPackedDescribers: gc --prune=now keeps every
// attestation and annotation that describes a live object, and what their
// evidence links to, wherever they are stored (reachability lists them by
// type, objects.TypeLister): in one pack or another, in two packs, both
// loose and packed, or loose alone; and it drops those of a dead run. In a
// sha256 repository without storage packs the packs are written back out
// first, so the same holds of the loose files.
func TestGCPruneNowKeepsPackedDescribers(t *testing.T) {
	for _, tc := range []struct {
		algo  objects.Algo
		packs bool
	}{{objects.BLAKE3, true}, {objects.SHA256, true}, {objects.SHA256, false}} {
		t.Run(fmt.Sprintf("%s packs=%v", tc.algo, tc.packs), func(t *testing.T) {
			r := newRepo(t, tc.algo)
			if tc.packs {
				packsOn(t, r)
			}
			ctx := context.Background()
			a := r.Algo()
			live := storeChain(t, r, "heads/live", true, 2)
			liveRun := live[len(live)-1]
			deadRun, dead := chainObjects(t, a, "dead", 2)
			att := func(target objects.OID, evidence ...objects.OID) *objects.Object {
				return jsonObject(t, a, objects.TypeAttestation, fmt.Sprintf(
					`{"claim":{"kind":"evaluation","n":%d},"evidence_ids":%s,"signature":null,"signer":"ci","target_id":%q}`,
					len(evidence), oidList(evidence), target))
			}
			ann := func(target objects.OID, previous *objects.Object, note string) *objects.Object {
				prev := ""
				if previous != nil {
					prev = fmt.Sprintf(`,"previous_id":%q`, previous.ID)
				}
				return jsonObject(t, a, objects.TypeAnnotation, fmt.Sprintf(`{"note":%q,"target_id":%q%s}`, note, target, prev))
			}
			evidence := objects.NewBlob(a, []byte("evidence only an attestation names"))
			attA := att(liveRun)
			attB := att(liveRun, evidence.ID)
			attBoth := att(liveRun, live[0])
			attLoose := att(liveRun, live[1])
			annA := ann(live[1], nil, "first")
			annB := ann(live[1], annA, "second") // a chain keeps its target
			attDead := att(deadRun.ID)
			annDead := ann(deadRun.ID, nil, "dead")
			for _, objs := range [][]*objects.Object{
				append([]*objects.Object{attA, attBoth, annA, attDead}, dead...),
				{attB, evidence, annB, attBoth, annDead},
			} {
				if _, err := r.Packs().WritePack(ctx, objs, pack.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Loose().PutBatch(ctx, []*objects.Object{attBoth, attLoose}); err != nil {
				t.Fatal(err)
			}
			ageAllLoose(t, r, time.Hour)

			// A minute on, so the loose files gc writes back from the packs
			// of a repository without storage packs are old too.
			later := func() time.Time { return time.Now().Add(time.Minute) }
			res, err := GC(ctx, r, GCOptions{Prune: true, Now: later})
			if err != nil {
				t.Fatal(err)
			}
			kept := append(live, attA.ID, attB.ID, attBoth.ID, attLoose.ID, annA.ID, annB.ID, evidence.ID)
			mustReadAll(t, r.Root(), kept)
			gone := []objects.OID{attDead.ID, annDead.ID}
			for _, o := range dead {
				gone = append(gone, o.ID)
			}
			for _, id := range gone {
				if _, err := r.Objects().Get(ctx, id); !errors.Is(err, objects.ErrNotFound) {
					t.Errorf("%s survived gc --prune=now: %v", id, err)
				}
			}
			if res.Pruned != len(gone) {
				t.Fatalf("gc pruned %d objects, want %d: %+v", res.Pruned, len(gone), res)
			}
			mustFsckClean(t, r)
		})
	}
}
