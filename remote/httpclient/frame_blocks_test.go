package httpclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// TestPushSendsStorageBlocksOnlyToServersReadingThem pushes a run from a
// repository with storage packs, read through plumbing.TransferReader (a
// remote.BlockSource), to tine serve in four guises: a server offering
// version 2 of the binary frame gets one (Tine-Frame: 2), a tine serve
// from before version 2 gets version 1 frames, one from before the binary
// frame TINEPACK3 under the extension, and an OpenTine-like server plain
// TINEPACK3. Each push arrives whole: the tenant fscks clean and holds the
// run's every object byte for byte.
func TestPushSendsStorageBlocksOnlyToServersReadingThem(t *testing.T) {
	for _, c := range []struct {
		name  string
		cfg   httpserve.Config
		frame string
	}{
		{"tine serve", httpserve.Config{}, "2"},
		{"before version 2", httpserve.Config{NoTineFrameBlocks: true}, "1"},
		{"before the binary frame", httpserve.Config{NoTineFrame: true}, ""},
		{"OpenTine", httpserve.Config{HideTineExtension: true}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := c.cfg
			cfg.Root, cfg.ObjectFormat = t.TempDir(), objects.BLAKE3
			s := newServer(t, cfg)
			var mu sync.Mutex
			var frames []string
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPatch {
					mu.Lock()
					frames = append(frames, r.Header.Get(wire.HeaderFrame))
					mu.Unlock()
				}
				s.ServeHTTP(w, r)
			}))
			defer hs.Close()
			local := newRepoOf(t, objects.BLAKE3)
			run := storeChain(t, local, 400)
			cl, err := httpclient.New(hs.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			set := closureOf(t, local, run)
			source := plumbing.TransferReader(local)
			bs, ok := source.(remote.BlockSource)
			if !ok {
				t.Fatal("plumbing.TransferReader is not a remote.BlockSource")
			}
			if blocks, _, err := bs.RawBlocks(ctx, set.IDs); err != nil || len(blocks) < 5 {
				t.Fatalf("the source's storage blocks: %d, %v", len(blocks), err)
			}
			res, err := httpclient.TransportOf(cl).Push(ctx, remote.PushRequest{Source: source, Set: set, Verified: true,
				Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
			if err != nil || res.Objects != 801 || !res.Refs[0].Updated {
				t.Fatalf("push: %+v, %v", res, err)
			}
			if got := strings.Join(frames, ","); got != c.frame {
				t.Fatalf("the upload's %s: %q, want %q", wire.HeaderFrame, got, c.frame)
			}
			tenant, err := plumbing.Open(filepath.Join(cfg.Root, "tenants", "acme"))
			if err != nil {
				t.Fatal(err)
			}
			defer tenant.Close()
			for _, id := range set.IDs {
				want, err := local.Objects().Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				got, err := tenant.Objects().Get(ctx, id)
				if err != nil || string(got.Stored()) != string(want.Stored()) {
					t.Fatalf("tenant's %s: %v", id, err)
				}
			}
			fr, err := plumbing.Fsck(ctx, tenant, plumbing.FsckOptions{})
			if err != nil || len(fr.Problems) != 0 || fr.Objects != 801 {
				t.Fatalf("tenant fsck: %+v, %v", fr, err)
			}
		})
	}
}

// TestFrameBlocksUploadResumesAfterCut uploads a version 2 frame (the
// source's storage blocks) through a connection cut half way: the client
// resumes from the server's offset, the completing PATCH carries
// Tine-Frame: 2, and the installed run can be named by a ref.
func TestFrameBlocksUploadResumesAfterCut(t *testing.T) {
	ctx := context.Background()
	hs, _ := startServerWith(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: objects.BLAKE3})
	local := newRepoOf(t, objects.BLAKE3)
	run := storeChain(t, local, 300)
	all, boundary, err := objects.PackClosure(ctx, local.Objects(), []objects.OID{run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]objects.OID, len(all))
	for i, o := range all {
		ids[i] = o.ID
	}
	blocks, covered, err := plumbing.TransferReader(local).(remote.BlockSource).RawBlocks(ctx, ids)
	if err != nil || len(blocks) < 5 {
		t.Fatalf("raw blocks: %d, %v", len(blocks), err)
	}
	var rest []*objects.Object
	for i, o := range all {
		if !covered[i] {
			rest = append(rest, o)
		}
	}
	frame, _, err := wire.WriteFrameBlocks(blocks, rest, boundary, objects.DefaultPackLimits, true)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newCutProxy(t, strings.TrimPrefix(hs.URL, "http://"), int64(len(frame))/2)
	c := binaryClient(t, "http://"+proxy.ln.Addr().String(), int64(len(frame)/6))
	if !c.FrameBlocks() {
		t.Fatal("tine serve did not offer version 2 of the binary frame")
	}
	rec, err := c.Upload(ctx, frame)
	if err != nil {
		t.Fatalf("upload through a cut connection: %v", err)
	}
	if !proxy.fired.Load() || rec.Recoveries != 1 || rec.Objects != len(all) {
		t.Fatalf("cut fired %v, recoveries %d, objects %d: the test did not cut an upload", proxy.fired.Load(), rec.Recoveries, rec.Objects)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, run); err != nil || !ok {
		t.Errorf("ref after the resumed upload: %v %v", ok, err)
	}
}
