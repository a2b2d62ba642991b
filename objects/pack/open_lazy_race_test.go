package pack

import (
	"context"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestStoragePackDeferredOpenConcurrent: many goroutines make the first
// use of a store at once, through every kind of call (lookups, listings,
// counts, the damage report, a Reload and a new pack's install); each
// sees every pack, and the race detector (go test -race) sees no
// unsynchronised access to the pack list.
func TestStoragePackDeferredOpenConcurrent(t *testing.T) {
	a := objects.BLAKE3
	dir := t.TempDir()
	objs := spTestObjects(t, a, 12)
	spWriteTestPack(t, dir, a, objs[:5], Options{})
	spWriteTestPack(t, dir, a, objs[5:10], Options{})
	spWriteTestPack(t, dir, a, objs[10:], Options{})
	extra := []*objects.Object{objects.NewBlob(a, []byte("written during the first use\n"))}
	for round := range 4 {
		s := spOpenTestPacks(t, dir, a)
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("round %d: "+format, append([]any{round}, args...)...)
		}
		for g := range 8 {
			wg.Go(func() {
				switch g % 8 {
				case 0, 1:
					for _, o := range objs {
						got, err := s.Get(ctx, o.ID)
						if err != nil || got.ID != o.ID {
							fail("Get %s: %v", o.ID, err)
						}
					}
				case 2:
					for _, o := range objs {
						if ok, err := s.Has(ctx, o.ID); !ok || err != nil {
							fail("Has %s: %v %v", o.ID, ok, err)
						}
					}
				case 3:
					ids, err := s.SortedIDs()
					if err != nil || len(ids) < len(objs) {
						fail("SortedIDs: %d ids, %v", len(ids), err)
					}
				case 4:
					n := 0
					if err := s.ListSizes(ctx, func(objects.OID, int64) error { n++; return nil }); err != nil || n < len(objs) {
						fail("ListSizes: %d, %v", n, err)
					}
				case 5:
					if err := s.Reload(); err != nil {
						fail("Reload: %v", err)
					}
				case 6:
					if d, err := s.Damaged(); err != nil || len(d) != 0 {
						fail("Damaged: %v, %v", d, err)
					}
					if ps, err := s.Packs(); err != nil || len(ps) < 3 {
						fail("Packs: %d, %v, want at least 3", len(ps), err)
					}
				case 7:
					if _, err := s.WritePack(ctx, extra, Options{}); err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: WritePack: %v", round, err)
		}
		for _, o := range append(objs, extra...) {
			spCheckGet(t, s, o)
		}
	}
}
