package httpclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
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

// TestBinaryFrameOnlyWhenBothSpeakIt pushes and fetches a run through a
// recorder in front of tine serve in five guises: tine serve (binary
// frames: the upload's PATCH carries Tine-Frame and the fetch asks for
// version 2 and is answered with it, uncompressed to a loopback URL unless
// the client is told to compress), tine serve reading version 2 in
// uploads only or not at all (servers from before version 2 fetch
// replies: the fetch asks for version 1), tine serve without the frame (a
// server from before it: TINEPACK3 under the extension) and an
// OpenTine-like server (neither header). Every transfer arrives whole.
func TestBinaryFrameOnlyWhenBothSpeakIt(t *testing.T) {
	for _, c := range []struct {
		name                   string
		cfg                    httpserve.Config
		compress               bool
		want                   string
		binary, tine, codecRaw bool
	}{
		{"tine serve", httpserve.Config{}, false, "PATCH frame=1 tine=1 -> 201 json; POST fetch frame=2 codec=none tine=1 -> 200 frame", true, true, true},
		{"tine serve, compressed", httpserve.Config{}, true, "PATCH frame=1 tine=1 -> 201 json; POST fetch frame=2 tine=1 -> 200 frame", true, true, false},
		{"no version 2 fetch", httpserve.Config{NoTineFetchBlocks: true}, false, "PATCH frame=1 tine=1 -> 201 json; POST fetch frame=1 codec=none tine=1 -> 200 frame", true, true, true},
		{"no version 2", httpserve.Config{NoTineFrameBlocks: true}, false, "PATCH frame=1 tine=1 -> 201 json; POST fetch frame=1 codec=none tine=1 -> 200 frame", true, true, true},
		{"no frame", httpserve.Config{NoTineFrame: true}, false, "PATCH tine=1 -> 201 json; POST fetch tine=1 -> 200 pack", false, true, false},
		{"OpenTine", httpserve.Config{HideTineExtension: true}, false, "PATCH -> 201 json; POST fetch -> 200 pack", false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := c.cfg
			cfg.Root, cfg.ObjectFormat = t.TempDir(), objects.SHA256
			s := newServer(t, cfg)
			var mu sync.Mutex
			var seen []string
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, r)
				for k, vs := range rec.Header() {
					w.Header()[k] = vs
				}
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				if r.Method != http.MethodPatch && !strings.HasSuffix(r.URL.Path, "/fetch") {
					return
				}
				line := r.Method
				if strings.HasSuffix(r.URL.Path, "/fetch") {
					line += " fetch"
				}
				if v := r.Header.Get(wire.HeaderFrame); v != "" {
					line += " frame=" + v
				}
				if v := r.Header.Get(wire.HeaderFrameCodec); v != "" {
					line += " codec=" + v
				}
				if b := rec.Body.Bytes(); (wire.IsFrame(b) || wire.IsFrameBlocks(b)) && len(b) > 42 && (b[42] == 0) != c.codecRaw {
					t.Errorf("a frame reply with codec byte %d", b[42])
				}
				if v := r.Header.Get(wire.HeaderTine); v != "" {
					line += " tine=" + v
				}
				kind := map[string]string{wire.FrameContentType: "frame", wire.PackContentType: "pack", wire.JSONContentType: "json"}[rec.Header().Get("Content-Type")]
				mu.Lock()
				seen = append(seen, fmt.Sprintf("%s -> %d %s", line, rec.Code, kind))
				mu.Unlock()
			}))
			defer hs.Close()
			local := newRepo(t)
			run := storeChain(t, local, 50)
			cl, err := httpclient.New(hs.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken, CompressFrames: c.compress})
			if err != nil {
				t.Fatal(err)
			}
			tr := httpclient.TransportOf(cl)
			set := closureOf(t, local, run)
			res, err := tr.Push(ctx, remote.PushRequest{Source: local.Objects(), Set: set, Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
			if err != nil || res.Objects != 101 || !res.Refs[0].Updated {
				t.Fatalf("push: %+v, %v", res, err)
			}
			clone := newRepo(t)
			sink, err := remote.NewRepoSink(clone)
			if err != nil {
				t.Fatal(err)
			}
			fres, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
			if err != nil || fres.Objects != 101 {
				t.Fatalf("fetch: %+v, %v", fres, err)
			}
			if err := sink.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			if has, err := clone.Objects().Has(ctx, run); err != nil || !has {
				t.Fatalf("the clone lacks the run: %v", err)
			}
			mu.Lock()
			sort.Strings(seen)
			got := strings.Join(seen, "; ")
			mu.Unlock()
			if got != c.want || cl.BinaryFrames() != c.binary || cl.Extended() != c.tine {
				t.Errorf("requests %q, binary %v, extended %v; want %q, %v, %v", got, cl.BinaryFrames(), cl.Extended(), c.want, c.binary, c.tine)
			}
		})
	}
}

// binaryChain stores a chain of n events in a new repository and returns
// its run and the binary frame of its closure.
func binaryChain(t *testing.T, n int) (objects.OID, []*objects.Object, []byte) {
	t.Helper()
	r := newRepo(t)
	run := storeChain(t, r, n)
	all, boundary, err := objects.PackClosure(context.Background(), r.Objects(), []objects.OID{run}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ordered, err := objects.DependencyOrder(all)
	if err != nil {
		t.Fatal(err)
	}
	frame, _, err := wire.WriteFrame(ordered, boundary, objects.DefaultPackLimits, true)
	if err != nil {
		t.Fatal(err)
	}
	return run, ordered, frame
}

// binaryClient is a client of hs that read the capabilities, so it
// uploads binary frames.
func binaryClient(t *testing.T, url string, chunk int64) *httpclient.Client {
	t.Helper()
	c, err := httpclient.New(url+"/v1/tenants/acme", httpclient.Options{Token: testToken, Chunk: chunk})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Algo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !c.BinaryFrames() {
		t.Fatal("tine serve did not offer the binary frame")
	}
	return c
}

// TestBinaryFrameRefusedInstallsNothing uploads damaged binary frames
// whose upload digest is right (the damage is inside the frame): a
// flipped byte of the compressed body, a frame cut short, one past the
// server's object count, and one whose objects link outside it. Each is
// refused with 400 (ErrInvalid) and the tenant stores nothing; then the
// intact frame installs.
func TestBinaryFrameRefusedInstallsNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	hs, _ := startServerWith(t, httpserve.Config{Root: root, TinePackObjects: 10100})
	c := binaryClient(t, hs.URL, 0)
	run, objs, frame := binaryChain(t, 40)
	flipped := bytes.Clone(frame)
	flipped[len(flipped)/2] ^= 0x20
	many := make([]*objects.Object, 10101)
	for i := range many {
		many[i] = objects.NewBlob(objects.SHA256, []byte(fmt.Sprintf("blob %d", i)))
	}
	over, _, err := wire.WriteFrame(many, nil, objects.PackLimits{Objects: 10101, Shallow: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The events without their blobs: every event links outside.
	var events []*objects.Object
	for _, o := range objs {
		if o.Type == objects.TypeEvent {
			events = append(events, o)
		}
	}
	dangling, _, err := wire.WriteFrame(events, nil, objects.DefaultPackLimits, true)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{"flipped": flipped, "truncated": frame[:len(frame)-9], "over the count": over, "unresolved links": dangling} {
		if _, err := c.Upload(ctx, bad); !errors.Is(err, httpclient.ErrInvalid) {
			t.Errorf("%s: upload = %v, want ErrInvalid", name, err)
		}
	}
	tenant, err := plumbing.Open(root + "/tenants/acme")
	if err != nil {
		t.Fatal(err)
	}
	defer tenant.Close()
	n := 0
	if err := tenant.Objects().List(ctx, func(objects.OID) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("refused frames left %d objects in the tenant", n)
	}
	rec, err := c.Upload(ctx, frame)
	if err != nil || rec.Objects != len(objs) || rec.PackID != wire.FrameID(frame) {
		t.Fatalf("intact frame: %+v, %v", rec, err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, run); err != nil || !ok {
		t.Fatalf("ref after the intact frame: %v %v", ok, err)
	}
}

// TestBinaryUploadResumesAfterCut cuts the connection in the middle of a
// binary frame's PATCH: the client resumes from the server's offset and
// the frame installs.
func TestBinaryUploadResumesAfterCut(t *testing.T) {
	ctx := context.Background()
	hs, _ := startServer(t)
	run, objs, frame := binaryChain(t, 300)
	proxy := newCutProxy(t, strings.TrimPrefix(hs.URL, "http://"), int64(len(frame))/2)
	c := binaryClient(t, "http://"+proxy.ln.Addr().String(), int64(len(frame)/6))
	rec, err := c.Upload(ctx, frame)
	if err != nil {
		t.Fatalf("upload through a cut connection: %v", err)
	}
	if !proxy.fired.Load() || rec.Recoveries != 1 || rec.Objects != len(objs) {
		t.Fatalf("cut fired %v, recoveries %d, objects %d: the test did not cut an upload", proxy.fired.Load(), rec.Recoveries, rec.Objects)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, run); err != nil || !ok {
		t.Errorf("ref after the resumed upload: %v %v", ok, err)
	}
}
