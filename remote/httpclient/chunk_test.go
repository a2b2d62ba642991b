package httpclient_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// patchCounter counts the PATCH requests a client sends and the largest
// body among them.
type patchCounter struct {
	n, largest atomic.Int64
}

func (p *patchCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPatch {
		p.n.Add(1)
		if r.ContentLength > p.largest.Load() {
			p.largest.Store(r.ContentLength)
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// chunks is the number of PATCH requests of at most chunk bytes that send
// n bytes.
func chunks(n int, chunk int64) int64 { return (int64(n) + chunk - 1) / chunk }

// TestUploadChunkFollowsServer uploads a 5 MiB binary frame to a tine
// serve on 127.0.0.1: it crosses in one PATCH (the server advertises a
// 16 MiB body cap), in chunks within the cap of a server reading at most
// 2 MiB a request (a 4 MiB chunk would be refused), and in the chunks a
// client was told to use.
func TestUploadChunkFollowsServer(t *testing.T) {
	ctx := context.Background()
	blobs := make([]*objects.Object, 80)
	for i := range blobs {
		blobs[i] = objects.NewBlob(objects.SHA256, fmt.Appendf(nil, "%065536d", i))
	}
	frame, _, err := wire.WriteFrame(blobs, nil, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		maxBody       int64
		chunk         int64
		patches, most int64
	}{
		{"default cap", 0, 0, 1, int64(len(frame))},
		{"2 MiB cap", 2 << 20, 0, chunks(len(frame), 2<<20), 2 << 20},
		{"chunk chosen", 0, 1 << 20, chunks(len(frame), 1<<20), 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs, _ := startServerWith(t, httpserve.Config{Root: t.TempDir(), MaxBodyBytes: c.maxBody})
			pc := &patchCounter{}
			cl, err := httpclient.New(hs.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken, Chunk: c.chunk, Transport: pc})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cl.Algo(ctx); err != nil {
				t.Fatal(err)
			}
			rec, err := cl.Upload(ctx, frame)
			if err != nil || rec.Objects != len(blobs) {
				t.Fatalf("upload: %+v, %v", rec, err)
			}
			if pc.n.Load() != c.patches || pc.largest.Load() > c.most {
				t.Fatalf("%d PATCH requests of at most %d bytes, want %d of at most %d", pc.n.Load(), pc.largest.Load(), c.patches, c.most)
			}
		})
	}
}

// TestStoredLen: the push's byte cut measures each envelope as long as
// the envelope it sends.
func TestStoredLen(t *testing.T) {
	for _, o := range []*objects.Object{
		objects.NewBlob(objects.SHA256, nil),
		objects.NewBlob(objects.BLAKE3, make([]byte, 70000)),
		jsonEvent(t),
	} {
		if got, want := httpclient.StoredLen(o), len(o.Stored()); got != want {
			t.Errorf("%s: storedLen %d, envelope %d bytes", o.ID, got, want)
		}
	}
}

// jsonEvent is an event object.
func jsonEvent(t *testing.T) *objects.Object {
	t.Helper()
	o, err := objects.NewObjectFromBody(objects.SHA256, objects.TypeEvent, 3, []byte(`{"kind":"step"}`))
	if err != nil {
		t.Fatal(err)
	}
	return o
}
