package plumbing

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRevParsePackedPrefix: a unique hex prefix names an object that lives
// only in a storage pack (after repack -d removed its loose copy), and an
// object both loose and packed is one candidate, not an ambiguity.
func TestRevParsePackedPrefix(t *testing.T) {
	ctx := context.Background()
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		r := packsOn(t, newRepo(t, a))
		ids := storeChain(t, r, "heads/main", false, 3)
		if _, err := Repack(ctx, r, RepackOptions{Delete: true}); err != nil {
			t.Fatal(err)
		}
		if n := looseCount(t, r); n != 0 {
			t.Fatalf("%s: %d loose objects after repack -d", a, n)
		}
		for _, id := range ids {
			got, err := r.Resolve(ctx, id.Hex()[:12])
			if err != nil || got != id {
				t.Fatalf("%s: Resolve(%s) = %v, %v; want %s", a, id.Hex()[:12], got, err, id)
			}
		}
		// The same object loose again: still one match.
		o, err := r.Objects().Get(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Loose().Put(ctx, o); err != nil {
			t.Fatal(err)
		}
		if got, err := r.Resolve(ctx, ids[0].Hex()[:12]); err != nil || got != ids[0] {
			t.Fatalf("%s: loose+packed Resolve = %v, %v", a, got, err)
		}
	}
}
