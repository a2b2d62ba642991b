package s3remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestPushFetchRoundTrip pushes a run with its evaluation to versitygw as
// one pack (pack, index, one ref object) and fetches it back into an empty
// receiver, whole and then at depth 1, for both object formats.
func TestPushFetchRoundTrip(t *testing.T) {
	srv := vgwtest.Start(t)
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			ctx := context.Background()
			bucket := srv.Bucket(t)
			tr := newRemote(t, srv, bucket, "p")
			desc, err := tr.Describe(ctx)
			if err != nil || desc.Exists {
				t.Fatalf("describe before the first push: %+v, %v", desc, err)
			}
			r := newRepo(t, a)
			run := putRun(t, r, "a", 5)
			res, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run)
			if err != nil {
				t.Fatal(err)
			}
			// 5 events, 5 blobs, the run, the attestation.
			if res.Objects != 12 || res.Packs != 1 || !res.Refs[0].Updated {
				t.Fatalf("push result %+v", res)
			}
			var keys []string
			tr.b.list(ctx, "", func(rel, _ string, _ int64) error { keys = append(keys, rel); return nil })
			if len(keys) != 4 || !strings.HasPrefix(keys[0], "packs/pack-") || !strings.HasSuffix(keys[0], ".idx") ||
				keys[1] != strings.TrimSuffix(keys[0], ".idx")+".pack" || keys[2] != "refs/heads/main" || keys[3] != "tine-remote.json" {
				t.Fatalf("keys after one push: %v", keys)
			}

			// A second transport (another process) sees what the first wrote.
			tr2 := newRemote(t, srv, bucket, "p")
			desc, err = tr2.Describe(ctx)
			if err != nil || !desc.Exists || desc.ObjectFormat != a {
				t.Fatalf("describe: %+v, %v", desc, err)
			}
			refsGot, err := tr2.ListRefs(ctx)
			if err != nil || len(refsGot) != 1 || refsGot[0] != (remote.Ref{Name: "heads/main", ID: run}) {
				t.Fatalf("refs %v, %v", refsGot, err)
			}
			sink := newMemSink(a)
			fr, err := tr2.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if fr.Objects != 12 || fr.Bytes == 0 || len(sink.boundary) != 0 {
				t.Fatalf("fetch result %+v, boundary %v", fr, sink.boundary)
			}
			// Nothing new: a second fetch transfers nothing.
			if fr, err := tr2.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink); err != nil || fr.Objects != 0 {
				t.Fatalf("refetch: %+v, %v", fr, err)
			}

			shallow := newMemSink(a)
			fr, err = tr2.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: 1}, shallow)
			if err != nil {
				t.Fatal(err)
			}
			// The run, its tip event and blob, the attestation; the other
			// four events (the run lists them, the tip links its parent)
			// are the boundary.
			if fr.Objects != 4 || len(shallow.boundary) != 4 {
				t.Fatalf("depth 1: %+v, boundary %v", fr, shallow.boundary)
			}
		})
	}
}

// TestObjectFormatMismatch: a sha256 repository cannot push to or fetch
// from a blake3 remote; nothing is uploaded.
func TestObjectFormatMismatch(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	bucket := srv.Bucket(t)
	tr := newRemote(t, srv, bucket, "")
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "b", 2)
	if _, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run); err != nil {
		t.Fatal(err)
	}
	other := newRepo(t, objects.SHA256)
	run2 := putRun(t, other, "s", 2)
	_, err := pushRun(ctx, newRemote(t, srv, bucket, ""), other, "heads/other", objects.OID{}, run2)
	if !errors.Is(err, remote.ErrObjectFormat) {
		t.Fatalf("push of sha256 objects to a blake3 remote: %v", err)
	}
	if _, err := tr.Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, newMemSink(objects.SHA256)); !errors.Is(err, remote.ErrObjectFormat) {
		t.Fatalf("fetch into sha256: %v", err)
	}
	n := 0
	tr.b.list(ctx, packsDir, func(string, string, int64) error { n++; return nil })
	if n != 2 {
		t.Fatalf("%d pack keys, want the first push's 2", n)
	}
}

// TestRefConflicts: creating an existing ref, moving a ref from a value it
// no longer holds, and losing the race between the read and the
// conditional write (412 from the server) are all conflicts naming both
// values; the ref keeps the winner's value.
func TestRefConflicts(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	tr := newRemote(t, srv, srv.Bucket(t), "x")
	r := newRepo(t, objects.BLAKE3)
	a, b, c := putRun(t, r, "a", 1), putRun(t, r, "b", 1), putRun(t, r, "c", 1)
	for _, run := range []objects.OID{a, b, c} {
		if _, err := pushRun(ctx, tr, r, "experiments/"+run.String()[len(run.String())-8:], objects.OID{}, run); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.updateRef(ctx, remote.RefUpdate{Name: "heads/main", New: a}); err != nil {
		t.Fatal(err)
	}
	var ce *remote.ConflictError
	err := tr.updateRef(ctx, remote.RefUpdate{Name: "heads/main", New: b})
	if !errors.As(err, &ce) || ce.Expected != (objects.OID{}) || ce.Actual != a {
		t.Fatalf("create over an existing ref: %v", err)
	}
	if err := tr.updateRef(ctx, remote.RefUpdate{Name: "heads/main", Old: a, New: b}); err != nil {
		t.Fatal(err)
	}
	err = tr.updateRef(ctx, remote.RefUpdate{Name: "heads/main", Old: a, New: c})
	if !errors.As(err, &ce) || ce.Expected != a || ce.Actual != b {
		t.Fatalf("stale move: %v", err)
	}

	// The 412 path: the ETag read before another writer moved the ref.
	old, err := tr.readRef(ctx, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.updateRef(ctx, remote.RefUpdate{Name: "heads/main", Old: b, New: c}); err != nil {
		t.Fatal(err)
	}
	_, err = tr.b.putBytes(ctx, refsDir+"heads/main", []byte(a.String()+"\n"), old.etag)
	if !errors.Is(err, errPrecondition) {
		t.Fatalf("If-Match on a replaced version: %v, want 412", err)
	}
	_, err = tr.b.putBytes(ctx, refsDir+"heads/main", []byte(a.String()+"\n"), "")
	if !errors.Is(err, errPrecondition) {
		t.Fatalf("If-None-Match: * on an existing key: %v, want 412", err)
	}
	now, err := tr.readRef(ctx, "heads/main")
	if err != nil || now.id != c {
		t.Fatalf("ref after the refused writes: %v, %v; want %s", now.id, err, c)
	}

	// A ref to an object the remote does not hold is never written.
	d := putRun(t, r, "d", 1)
	res, err := tr.Push(ctx, remote.PushRequest{Source: r.Objects(), Updates: []remote.RefUpdate{{Name: "heads/main", Old: c, New: d}}})
	if !errors.Is(err, remote.ErrIncomplete) {
		t.Fatalf("push of a ref without its object: %+v, %v", res, err)
	}
}

// TestListRefsRefusesCorruptRef: a ref object that is not a ref file, or
// names a blob under heads/, fails the listing.
func TestListRefsRefusesCorruptRef(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	tr := newRemote(t, srv, srv.Bucket(t), "")
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 1)
	if _, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run); err != nil {
		t.Fatal(err)
	}
	blob := objects.NewBlob(objects.BLAKE3, []byte("x"))
	for _, body := range []string{"not an oid\n", blob.ID.String() + "\n"} {
		if _, err := tr.b.putBytes(ctx, refsDir+"heads/bad", []byte(body), ""); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.ListRefs(ctx); !errors.Is(err, ErrRemoteCorrupt) {
			t.Fatalf("listing with heads/bad = %q: %v", body, err)
		}
		if err := tr.b.remove(ctx, refsDir+"heads/bad"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPromotionsRefused: promotions/* never move on an S3 remote (no side
// there can apply a release policy); the other refs of the push still do.
func TestPromotionsRefused(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	tr := newRemote(t, srv, srv.Bucket(t), "")
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 1)
	if _, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run); err != nil {
		t.Fatal(err)
	}
	res, err := tr.Push(ctx, remote.PushRequest{Source: r.Objects(), Set: &plumbing.TransferSet{},
		Updates: []remote.RefUpdate{{Name: "promotions/prod", New: run}, {Name: "tags/v1", New: run}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Refs[0].Updated || !errors.Is(res.Refs[0].Err, remote.ErrRefused) || !res.Refs[1].Updated {
		t.Fatalf("results %+v", res.Refs)
	}
	got, err := tr.ListRefs(ctx)
	if err != nil || len(got) != 2 || got[0].Name != "heads/main" || got[1].Name != "tags/v1" {
		t.Fatalf("refs %v, %v", got, err)
	}
}

// TestRefNameClash: a ref above or below an existing one (heads/a beside
// heads/a/b) is refused on the remote, as a repository would refuse it.
func TestRefNameClash(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	tr := newRemote(t, srv, srv.Bucket(t), "")
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 1)
	if _, err := pushRun(ctx, tr, r, "heads/team/a", objects.OID{}, run); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"heads/team", "heads/team/a/b"} {
		err := tr.updateRef(ctx, remote.RefUpdate{Name: name, New: run})
		if !errors.Is(err, remote.ErrRefused) || !errors.Is(err, refs.ErrNameClash) {
			t.Fatalf("create %s beside heads/team/a: %v", name, err)
		}
	}
	if err := tr.updateRef(ctx, remote.RefUpdate{Name: "heads/team-b", New: run}); err != nil {
		t.Fatal(err)
	}
}

// TestServerRefusals: a missing bucket is not an empty remote (nothing to
// create there) and wrong credentials are refused, each in one line
// without request ids.
func TestServerRefusals(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	_, err := newRemote(t, srv, "no-such-bucket", "x").Describe(ctx)
	if !errors.Is(err, remote.ErrNotFound) || !strings.Contains(err.Error(), "404 NoSuchBucket") || !strings.Contains(err.Error(), "create it first") {
		t.Fatalf("describe of a missing bucket: %v", err)
	}
	cfg, err := ConfigFromEnv("s3://"+srv.Bucket(t), "", func(k string) string {
		if k == "AWS_SECRET_ACCESS_KEY" {
			return "not-the-secret"
		}
		return srv.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(cfg, remote.Options{}).ListRefs(ctx)
	if !errors.Is(err, remote.ErrRefused) || !strings.Contains(err.Error(), "403") || strings.Contains(err.Error(), "RequestID") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("wrong secret: %v", err)
	}
}

// TestPushRefusesDanglingLinks: a push whose objects link to something
// neither pushed before them nor on the remote uploads nothing and moves
// nothing.
func TestPushRefusesDanglingLinks(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	tr := newRemote(t, srv, srv.Bucket(t), "")
	r := newRepo(t, objects.BLAKE3)
	run := putRun(t, r, "a", 2)
	_, err := tr.Push(ctx, remote.PushRequest{Source: r.Objects(), Set: &plumbing.TransferSet{IDs: []objects.OID{run}},
		Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
	if !errors.Is(err, remote.ErrIncomplete) {
		t.Fatalf("push of a run without its events: %v", err)
	}
	n := 0
	tr.b.list(ctx, "", func(rel, _ string, _ int64) error {
		if rel != markerKey {
			n++
		}
		return nil
	})
	if n != 0 {
		t.Fatalf("%d keys besides the marker after a refused push", n)
	}
}

// TestRefusedPushLeavesNoStagedPack: a push refused after some of its
// objects were staged closes and removes the staged pack and its
// directory (both stayed behind: an open file and a tine-s3-push-*
// directory under the temporary directory for every refused push).
func TestRefusedPushLeavesNoStagedPack(t *testing.T) {
	srv := vgwtest.Start(t)
	ctx := context.Background()
	tr := newRemote(t, srv, srv.Bucket(t), "")
	r := newRepo(t, objects.BLAKE3)
	blob := put(t, r, objects.NewBlob(r.Algo(), []byte("staged before the refusal\n")))
	run := putRun(t, r, "a", 2)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, err := tr.Push(ctx, remote.PushRequest{Source: r.Objects(), Set: &plumbing.TransferSet{IDs: []objects.OID{blob, run}},
		Updates: []remote.RefUpdate{{Name: "heads/main", New: run}}})
	if !errors.Is(err, remote.ErrIncomplete) {
		t.Fatalf("push of a run without its events: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("left in the temporary directory: %v", left)
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, fd := range fds {
			if target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); strings.HasPrefix(target, tmp) {
				t.Fatalf("still open: %s", target)
			}
		}
	}
}
