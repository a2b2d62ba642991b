package s3remote

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestDownloadedIndexIsVerified: the index a fetch writes next to a
// downloaded pack (downloadPack, with neither a temp file nor an fsync:
// the directory is scratch) is verified against the pack before anything
// is read through it. An index that differs from what the pack binds by
// one byte is refused as remote corruption, no object is returned, and
// closing the fetch removes the scratch directory.
func TestDownloadedIndexIsVerified(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	bucket := srv.Bucket(t)
	tr := newRemote(t, srv, bucket, "p")
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 3)
	if _, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run); err != nil {
		t.Fatal(err)
	}
	tr2 := newRemote(t, srv, bucket, "p")
	if _, err := tr2.Describe(ctx); err != nil { // learns the object format
		t.Fatal(err)
	}
	pi, err := tr2.loadPacks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := pi.where[run]
	good := pi.idx[name]
	if name == "" || len(good) == 0 {
		t.Fatalf("the pushed run is in no pack: %q", name)
	}
	// A sound index reads the run back.
	src, err := newPackSource(tr2, pi, func(context.Context, objects.OID) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	if o, err := src.Get(ctx, run); err != nil || o.ID != run {
		t.Fatalf("get through a sound index: %v", err)
	}
	src.close()

	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 0x01
	flipped := &packIndex{where: pi.where, idx: map[string][]byte{name: bad}, assocs: pi.assocs}
	src, err = newPackSource(tr2, flipped, func(context.Context, objects.OID) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	o, err := src.Get(ctx, run)
	if !errors.Is(err, ErrRemoteCorrupt) || o != nil {
		t.Fatalf("get through a flipped index: %v, %v; want ErrRemoteCorrupt", o, err)
	}
	dir := src.dir
	src.close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the scratch directory outlives its fetch: %v", err)
	}
}
