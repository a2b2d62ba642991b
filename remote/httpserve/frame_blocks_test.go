package httpserve_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// blockSource is plumbing.TransferReader's raw-block side.
type blockSource interface {
	RawBlocks(ctx context.Context, ids []objects.OID) ([]pack.RawBlock, []bool, error)
}

// blocksFrame frames the closure of src's run as a version 2 frame: the
// objects filling storage blocks of src in those blocks, the rest (skip
// drops the first skip blocks and their objects) as envelopes.
func blocksFrame(t testing.TB, src *source, skip int) ([]byte, []pack.RawBlock) {
	t.Helper()
	ctx := context.Background()
	objs, boundary, err := objects.PackClosure(ctx, src.repo.Objects(), []objects.OID{src.run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]objects.OID, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	blocks, covered, err := plumbing.TransferReader(src.repo).(blockSource).RawBlocks(ctx, ids)
	if err != nil || len(blocks) < 2+skip {
		t.Fatalf("raw blocks: %d, %v", len(blocks), err)
	}
	var rest []*objects.Object
	for i, o := range objs {
		if !covered[i] {
			rest = append(rest, o)
		}
	}
	frame, _, err := wire.WriteFrameBlocks(blocks[skip:], rest, boundary, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	return frame, blocks[skip:]
}

// uploadFrame declares frame as an upload and sends it in one PATCH with
// header.
func (ts *testServer) uploadFrame(t testing.TB, frame []byte, header map[string]string) (int, string) {
	t.Helper()
	sum := sha256.Sum256(frame)
	decl := fmt.Sprintf(`{"sha256":"%x","size":%d}`, sum, len(frame))
	status, text, _ := ts.send(t, "POST", "/v1/tenants/acme/packs", "", wire.JSONContentType, []byte(decl), nil)
	var m struct {
		UploadID string `json:"upload_id"`
	}
	if status != 201 || json.Unmarshal([]byte(text), &m) != nil {
		t.Fatalf("declaration = %d %s", status, text)
	}
	h := map[string]string{wire.HeaderUploadOffset: "0"}
	for k, v := range header {
		h[k] = v
	}
	status, text, _ = ts.send(t, "PATCH", "/v1/tenants/acme/packs/"+m.UploadID, "", "application/offset+octet-stream", frame, h)
	return status, text
}

// tenantHolds counts the objects of src's run closure the tenant holds.
func (ts *testServer) tenantHolds(t *testing.T, src *source) int {
	t.Helper()
	ctx := context.Background()
	tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme"))
	if err != nil {
		return 0
	}
	defer tenant.Close()
	objs, _, err := objects.PackClosure(ctx, src.repo.Objects(), []objects.OID{src.run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range objs {
		if has, _ := tenant.Objects().Has(ctx, o.ID); has {
			n++
		}
	}
	return n
}

// reseal recomputes an uncompressed frame's body digest after a test
// changed its body.
func reseal(frame []byte) []byte {
	sum := sha256.Sum256(frame[43:])
	copy(frame[10:42], sum[:])
	return frame
}

// TestFrameBlocksUpload uploads a version 2 frame (the source's storage
// blocks as stored) to tine serve: with Tine-Frame: 2 it installs, the
// tenant's objects byte for byte the source's, fsck clean on both sides,
// and the tenant's pack holding the blocks' bytes as sent (not compressed
// again). Refused with 400 and nothing stored: the frame under
// Tine-Frame: 1, a body not matching its digest, a truncated frame, a
// corrupted block payload, a frame missing the blocks its other objects
// link to, and Tine-Frame: 2 on a server that does not offer version 2.
func TestFrameBlocksUpload(t *testing.T) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) { testFrameBlocksUpload(t, a) })
	}
}

// testFrameBlocksUpload is TestFrameBlocksUpload in hash profile a. A
// sha256 tenant keeps no storage packs (OpenTine reads it): it stores the
// blocks' objects loose.
func testFrameBlocksUpload(t *testing.T, a objects.Algo) {
	ctx := context.Background()
	src := newSource(t, a, "seed", 1)
	if a == objects.SHA256 {
		if err := src.repo.SetStoragePacks(true); err != nil {
			t.Fatal(err)
		}
	}
	src.run, src.events = src.addRun(t, "blocks", 300)
	frame, blocks := blocksFrame(t, src, 0)
	v2 := map[string]string{wire.HeaderFrame: "2"}
	var mu sync.Mutex
	var logged []string
	ts := startServer(t, httpserve.Config{ObjectFormat: a, Log: func(line string) {
		mu.Lock()
		logged = append(logged, line)
		mu.Unlock()
	}})
	lastLog := func() string {
		mu.Lock()
		defer mu.Unlock()
		if len(logged) == 0 {
			return ""
		}
		return logged[len(logged)-1]
	}
	flip := func(f []byte, at int) []byte {
		g := bytes.Clone(f)
		g[at] ^= 0x40
		return g
	}
	// A byte inside the first zstd payload: the block is the first thing
	// after the counts (no shallow ids in this closure).
	at := bytes.Index(frame, blocks[0].Payload[:32]) + len(blocks[0].Payload)/2
	skipped, _ := blocksFrame(t, src, 1)
	for _, c := range []struct {
		name   string
		frame  []byte
		header map[string]string
		why    string
	}{
		{"version 2 frame under Tine-Frame: 1", frame, map[string]string{wire.HeaderFrame: "1"}, "magic"},
		{"body digest mismatch", flip(frame, len(frame)-10), v2, "the body hashes to"},
		{"truncated", reseal(bytes.Clone(frame[:len(frame)-300])), v2, "runs past the body's end"},
		{"corrupted block payload", reseal(flip(frame, at)), v2, "links to"},
		{"blocks linking to objects neither sent nor stored", skipped, v2, "links to"},
	} {
		status, text := ts.uploadFrame(t, c.frame, c.header)
		if status != 400 || !strings.Contains(lastLog(), c.why) {
			t.Errorf("%s: %d %s (%s), want 400 saying %q", c.name, status, text, lastLog(), c.why)
		}
		if n := ts.tenantHolds(t, src); n != 0 {
			t.Fatalf("%s: the tenant holds %d objects of the refused frame", c.name, n)
		}
	}
	old := startServer(t, httpserve.Config{ObjectFormat: a, NoTineFrameBlocks: true})
	if status, text := old.uploadFrame(t, frame, v2); status != 400 || old.tenantHolds(t, src) != 0 {
		t.Errorf("Tine-Frame: 2 to a server without version 2: %d %s, want 400", status, text)
	}

	if status, text := ts.uploadFrame(t, frame, v2); status != 201 || !strings.Contains(text, wire.FrameID(frame)) {
		t.Fatalf("version 2 frame = %d %s, want 201 naming %s", status, text, wire.FrameID(frame))
	}
	tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme"))
	if err != nil {
		t.Fatal(err)
	}
	defer tenant.Close()
	objs, _, err := objects.PackClosure(ctx, src.repo.Objects(), []objects.OID{src.run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		got, err := tenant.Objects().Get(ctx, o.ID)
		if err != nil || !bytes.Equal(got.Stored(), o.Stored()) {
			t.Fatalf("tenant's %s: %v", o.ID, err)
		}
	}
	for _, r := range []*plumbing.Repo{src.repo, tenant} {
		res, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
		if err != nil || len(res.Problems) != 0 || len(res.Warnings) != 0 {
			t.Fatalf("fsck: %+v, %v", res, err)
		}
	}
	if a == objects.SHA256 {
		return
	}
	packs, _ := filepath.Glob(filepath.Join(ts.root, "tenants", "acme", ".tine", "objects", "pack", "*.pack"))
	var stored []byte
	for _, p := range packs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, b...)
	}
	for i, b := range blocks {
		if !bytes.Contains(stored, b.Payload) {
			t.Fatalf("block %d's payload is not in the tenant's packs", i)
		}
	}
}
