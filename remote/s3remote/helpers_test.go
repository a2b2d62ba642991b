package s3remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// vgwProxy returns a reverse proxy to srv, the heart of the test proxies
// standing in front of versitygw.
func vgwProxy(t testing.TB, srv *vgwtest.Server) *httputil.ReverseProxy {
	t.Helper()
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(target)
}

// conditionalPut reports whether r is a conditional write: a PUT with
// If-Match or If-None-Match.
func conditionalPut(r *http.Request) bool {
	return r.Method == http.MethodPut && (r.Header.Get("If-Match") != "" || r.Header.Get("If-None-Match") != "")
}

// newRemote returns a Transport on a fresh bucket of srv under prefix,
// allowed to create the remote.
func newRemote(t testing.TB, srv *vgwtest.Server, bucket, prefix string) *Transport {
	t.Helper()
	raw := "s3://" + bucket
	if prefix != "" {
		raw += "/" + prefix
	}
	cfg, err := ConfigFromEnv(raw, "", srv.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, remote.Options{})
}

// newRepo initialises a repository in a temp directory.
func newRepo(t testing.TB, a objects.Algo) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), a)
	if err != nil {
		t.Fatalf("init: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// jsonObject builds an object of type ty from JSON text.
func jsonObject(t testing.TB, a objects.Algo, ty objects.Type, text string) *objects.Object {
	t.Helper()
	v, err := objects.ParseJSON([]byte(text), objects.ParseOptions{})
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	o, err := objects.NewJSONObject(a, ty, 1, v)
	if err != nil {
		t.Fatalf("object %s: %v", text, err)
	}
	return o
}

// put stores o in r.
func put(t testing.TB, r *plumbing.Repo, o *objects.Object) objects.OID {
	t.Helper()
	if err := r.Objects().Put(context.Background(), o); err != nil {
		t.Fatalf("put %s: %v", o.ID, err)
	}
	return o.ID
}

// oidList spells ids as a JSON array.
func oidList(ids []objects.OID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = `"` + id.String() + `"`
	}
	return "[" + strings.Join(s, ",") + "]"
}

// putRun stores n chained events (each with an output blob), a run over
// them and an evaluation attestation of the run, and returns the run.
func putRun(t testing.TB, r *plumbing.Repo, label string, n int) objects.OID {
	t.Helper()
	var evs []objects.OID
	for i := 0; i < n; i++ {
		blob := put(t, r, objects.NewBlob(r.Algo(), fmt.Appendf(nil, "output of %s step %d\n", label, i)))
		evs = append(evs, put(t, r, jsonObject(t, r.Algo(), objects.TypeEvent,
			fmt.Sprintf(`{"kind":"model","label":%q,"output_blob":%q,"parent_ids":%s}`,
				fmt.Sprintf("%s-%d", label, i), blob, oidList(evs[max(0, len(evs)-1):])))))
	}
	run := put(t, r, jsonObject(t, r.Algo(), objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
		oidList(evs), oidList(evs[:1]), oidList(evs[len(evs)-1:]))))
	put(t, r, jsonObject(t, r.Algo(), objects.TypeAttestation,
		fmt.Sprintf(`{"claim":{"kind":"evaluation","scores":{"accuracy":0.5}},"target_id":%q}`, run)))
	return run
}

// pushRun pushes run's closure from r and moves ref from old to run.
func pushRun(ctx context.Context, tr *Transport, r *plumbing.Repo, ref string, old, run objects.OID) (*remote.PushResult, error) {
	src, err := plumbing.RepoTransferSource(ctx, r)
	if err != nil {
		return nil, err
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: []objects.OID{run}, Depth: plumbing.NoDepth})
	if err != nil {
		return nil, err
	}
	ids, err := tr.Missing(ctx, set.IDs)
	if err != nil {
		return nil, err
	}
	return tr.Push(ctx, remote.PushRequest{Source: r.Objects(), Set: set.WithIDs(ids),
		Updates: []remote.RefUpdate{{Name: ref, Old: old, New: run}}})
}

// memSink is a remote.Sink over a memory store that checks what every
// transport promises: each batch is link-closed over what came before it
// and its declared boundary.
type memSink struct {
	mu       sync.Mutex
	st       *memory.Store
	boundary map[objects.OID]bool
	batches  int
}

func newMemSink(a objects.Algo) *memSink {
	return &memSink{st: memory.New(a), boundary: map[objects.OID]bool{}}
}

func (s *memSink) Algo() objects.Algo { return s.st.Algo() }

func (s *memSink) Has(ctx context.Context, id objects.OID) (bool, error) { return s.st.Has(ctx, id) }

func (s *memSink) Install(ctx context.Context, objs []*objects.Object, boundary []objects.OID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	bound := map[objects.OID]bool{}
	for _, id := range boundary {
		bound[id] = true
	}
	for _, o := range objs {
		if got := o.ID.Algo.Derive(o.Type, o.Schema, o.Body); got != o.ID {
			return fmt.Errorf("object %s hashes to %s", o.ID, got)
		}
		links, err := objects.Links(o)
		if err != nil {
			return err
		}
		for _, l := range links {
			if ok, _ := s.st.Has(ctx, l); !ok && !bound[l] {
				return fmt.Errorf("%w: %s links to %s, neither stored nor boundary", remote.ErrIncomplete, o.ID, l)
			}
		}
		if err := s.st.Put(ctx, o); err != nil {
			return err
		}
	}
	for id := range bound {
		s.boundary[id] = true
	}
	s.batches++
	return nil
}

// errorsIsConflict reports whether err is a lost compare-and-swap.
func errorsIsConflict(err error) bool { return errors.Is(err, remote.ErrConflict) }

// errorsAs is errors.As.
func errorsAs(err error, target any) bool { return errors.As(err, target) }
