package httpclient_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/objects/pack/packtest"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// hostileBlock is a block as a lying server spells it, checked by
// nothing.
type hostileBlock struct {
	kind    byte
	rawLen  uint64
	lengths []uint64
	payload []byte
}

// hostileFrame seals, uncompressed, a version 2 body of nBlocks (which
// may lie about len(blocks)) and the blocks, with no loose objects and no
// shallow ids.
func hostileFrame(nBlocks uint64, blocks []hostileBlock) []byte {
	body := binary.AppendUvarint(nil, nBlocks)
	body = binary.AppendUvarint(body, 0)
	body = binary.AppendUvarint(body, 0)
	for _, b := range blocks {
		body = append(body, b.kind)
		body = binary.AppendUvarint(body, b.rawLen)
		body = binary.AppendUvarint(body, uint64(len(b.lengths)))
		for _, l := range b.lengths {
			body = binary.AppendUvarint(body, l)
		}
		body = binary.AppendUvarint(body, uint64(len(b.payload)))
		body = append(body, b.payload...)
	}
	sum := sha256.Sum256(body)
	return append(append(append([]byte(wire.FrameBlocksMagic), sum[:]...), 0), body...)
}

// TestFetchBlocksHostileReplies answers a client's fetch with version 2
// frames a lying server could send, behind the capabilities of a real
// tine serve: a block whose payload decodes to more than it declares, a
// block count the body cannot hold, a body cut short, a block of the run
// and its events whose blobs are neither sent nor declared shallow, a
// shallow id no sent object links to, and a version 2 reply to a client
// that asked for version 1 (its server did not offer fetch_blocks); and a
// version 1 reply of the run and its events without their blobs, which a
// full fetch under the extension (holding runs back) once stored,
// recording the blobs as a shallow boundary the server never declared.
// Each fetch fails with an error saying what is wrong, and the receiving
// repository stores nothing, not even a shallow entry; then the real
// server's reply installs.
func TestFetchBlocksHostileReplies(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	local := newRepoOf(t, a)
	run, _ := appendChain(t, local, nil, 40)
	set := closureOf(t, local, run)
	// events is the run and its events without their blobs.
	var events, all []*objects.Object
	for _, id := range set.IDs {
		o, err := local.Objects().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, o)
		if o.Type == objects.TypeEvent || o.Type == objects.TypeRun {
			events = append(events, o)
		}
	}
	eventBlocks := packtest.RawBlocksOf(t, a, events, 4096)
	dangling, _, err := wire.WriteFrameBlocks(eventBlocks, nil, nil, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	danglingV1, _, err := wire.WriteFrame(events, nil, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	allBlocks := packtest.RawBlocksOf(t, a, all, 4096)
	bogus := a.Derive(objects.TypeEvent, 1, []byte(`{"label":"never linked"}`))
	strayShallow, _, err := wire.WriteFrameBlocks(allBlocks, nil, []objects.OID{bogus}, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	intact, _, err := wire.WriteFrameBlocks(allBlocks, nil, nil, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	env := [][]byte{events[0].Stored(), events[1].Stored()}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	joined := bytes.Join(env, nil)
	longer := enc.EncodeAll(append(bytes.Clone(joined), bytes.Repeat([]byte("more than declared "), 50)...), nil)
	overlong := hostileFrame(1, []hostileBlock{{pack.KindZstd, uint64(len(joined)), []uint64{uint64(len(env[0])), uint64(len(env[1]))}, longer}})
	manyBlocks := hostileFrame(1<<40, []hostileBlock{{pack.KindStored, uint64(len(env[0])), []uint64{uint64(len(env[0]))}, env[0]}})

	for _, c := range []struct {
		name   string
		cfg    httpserve.Config
		reply  []byte
		is     error
		saying string
	}{
		{"a block decoding to more than it declares", httpserve.Config{}, overlong, wire.ErrBadFrame, "exceeds"},
		{"more blocks than the body holds", httpserve.Config{}, manyBlocks, wire.ErrBadFrame, "blocks"},
		{"a body cut short", httpserve.Config{}, intact[:len(intact)-9], wire.ErrBadFrame, "hashes to"},
		{"events without their blobs", httpserve.Config{}, dangling, remote.ErrIncomplete, "neither sent before it"},
		{"events without their blobs, version 1", httpserve.Config{}, danglingV1, remote.ErrIncomplete, "neither sent before it"},
		{"a shallow id nothing links to", httpserve.Config{}, strayShallow, remote.ErrIncomplete, "not a link"},
		{"version 2 not asked for", httpserve.Config{NoTineFetchBlocks: true}, intact, httpclient.ErrProtocol, "not the frame asked for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Root, cfg.ObjectFormat = t.TempDir(), a
			s := newServer(t, cfg)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasSuffix(r.URL.Path, "/fetch") {
					s.ServeHTTP(w, r)
					return
				}
				w.Header().Set("Content-Type", wire.FrameContentType)
				w.Header().Set("Content-Length", strconv.Itoa(len(c.reply)))
				w.Write(c.reply)
			}))
			defer hs.Close()
			tr := openRemote(t, hs.URL)
			clone := newRepoOf(t, a)
			sink, err := remote.NewRepoSink(clone)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.saying) {
				t.Fatalf("fetch = %v, want %v saying %q", err, c.is, c.saying)
			}
			if n := countStored(t, clone); n != 0 {
				t.Fatalf("the refused reply left %d objects", n)
			}
			if sh, err := clone.Refs().ReadShallow(); err != nil || len(sh) != 0 {
				t.Fatalf("the refused reply left shallow entries %v, %v", sh, err)
			}
		})
	}
	hs, _ := serveTraced(t, newServer(t, httpserve.Config{Root: t.TempDir(), ObjectFormat: a}), a)
	tr := openRemote(t, hs.URL)
	pushBlocks(t, tr, local, run, objects.OID{})
	clone := newRepoOf(t, a)
	if res := fetchInto(t, tr, clone, run, remote.NoDepth); res.Objects != len(all) {
		t.Fatalf("the real reply: %d objects, want %d", res.Objects, len(all))
	}
	fsckClean(t, clone)
}

// countStored counts the objects r stores.
func countStored(t *testing.T, r *plumbing.Repo) int {
	t.Helper()
	n := 0
	if err := r.Objects().List(context.Background(), func(objects.OID) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
