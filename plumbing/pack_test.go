package plumbing

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// packTo packs revs of r into a file and returns its path and result.
func packTo(t *testing.T, r *Repo, revs ...string) (string, *PackResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "x.tinepack")
	res, err := Pack(context.Background(), r, PackOptions{Revisions: revs, Output: out})
	if err != nil {
		t.Fatalf("pack %v: %v", revs, err)
	}
	return out, res
}

// fsckClean fails t unless fsck finds no problem in r.
func fsckClean(t *testing.T, r *Repo) *FsckResult {
	t.Helper()
	res, err := Fsck(context.Background(), r, FsckOptions{})
	if err != nil || !res.OK() {
		t.Fatalf("fsck: %v %+v", err, res)
	}
	return res
}

func TestPackUnpackRoundTrip(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, a *Repo) {
		ctx := context.Background()
		blob := put(t, a, objects.NewBlob(a.Algo(), []byte("tool output\n")))
		e0 := putEvent(t, a, "start")
		e1 := put(t, a, jsonObject(t, a.Algo(), objects.TypeEvent,
			fmt.Sprintf(`{"kind":"tool","output_blob":"%s","parent_ids":["%s"]}`, blob, e0)))
		run := put(t, a, chainRun(t, a.Algo(), []objects.OID{e0, e1}))
		put(t, a, objects.NewBlob(a.Algo(), []byte("unrelated")))
		file, res := packTo(t, a, run.String())
		if res.Objects != 4 || res.Boundary != 0 || len(res.Roots) != 1 {
			t.Fatalf("pack result %+v, want run, 2 events, 1 blob", res)
		}
		if _, err := Pack(ctx, a, PackOptions{Revisions: []string{run.String()}, Output: file}); !errors.Is(err, ErrOutputExists) {
			t.Fatalf("overwrite without force: %v", err)
		}

		b := newRepo(t, a.Algo())
		got, err := Unpack(ctx, b, UnpackOptions{Path: file})
		if err != nil {
			t.Fatal(err)
		}
		if got.PackID != res.PackID || got.Objects != 4 || len(got.Boundary) != 0 {
			t.Fatalf("unpack %+v, want %s with 4 objects", got, res.PackID)
		}
		if got.Installed[len(got.Installed)-1] != run.String() {
			t.Errorf("run installed before its links: %v", got.Installed)
		}
		if n := fsckClean(t, b).Objects; n != 4 {
			t.Errorf("B holds %d objects, want 4", n)
		}
		// Idempotent: a second unpack finds everything present.
		if _, err := Unpack(ctx, b, UnpackOptions{Path: file}); err != nil {
			t.Fatalf("second unpack: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(b.Root(), "shallow")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a complete pack wrote a shallow file: %v", err)
		}
	})
}

// A fork shares its first events with the original run; a pack that omits
// that prefix declares it shallow, and every repository along the way
// stays fsck-clean.
func TestPackForkWithShallowPrefix(t *testing.T) {
	ctx := context.Background()
	a := newRepo(t, objects.SHA256)
	run1, evs := putChainRun(t, a, "main", 3)
	f2 := putEvent(t, a, "fork", evs[1])
	fork := jsonObject(t, a.Algo(), objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
		oidList([]objects.OID{evs[0], evs[1], f2}), oidList(evs[:1]), oidList([]objects.OID{f2})))
	put(t, a, fork)

	// The partial pack: the fork run and its own event only.
	partial, id, err := objects.WritePack([]*objects.Object{fork, mustGet(t, a, f2)}, []objects.OID{evs[0], evs[1]})
	if err != nil {
		t.Fatal(err)
	}
	pfile := filepath.Join(t.TempDir(), "fork.tinepack")
	os.WriteFile(pfile, partial, 0o644)

	d := newRepo(t, objects.SHA256)
	got, err := Unpack(ctx, d, UnpackOptions{Path: pfile})
	if err != nil {
		t.Fatal(err)
	}
	if got.PackID != id || len(got.Boundary) != 2 {
		t.Fatalf("unpack %+v, want 2 boundary oids", got)
	}
	if sh := fsckClean(t, d).Shallow; sh != 2 {
		t.Errorf("shallow entries %d, want 2", sh)
	}
	// The shallow repository packs the fork again: same partial pack.
	again, res := packTo(t, d, fork.ID.String())
	if res.PackID != id || res.Boundary != 2 || res.Objects != 2 {
		t.Fatalf("repack from shallow repository: %+v, want %s", res, id)
	}
	// A repository holding the prefix takes it with no new shallow entry.
	b := newRepo(t, objects.SHA256)
	full, _ := packTo(t, a, run1.String())
	if _, err := Unpack(ctx, b, UnpackOptions{Path: full}); err != nil {
		t.Fatal(err)
	}
	got, err = Unpack(ctx, b, UnpackOptions{Path: again})
	if err != nil || len(got.Boundary) != 0 {
		t.Fatalf("fork into full repository: %+v, %v", got, err)
	}
	if res := fsckClean(t, b); res.Shallow != 0 || res.Objects != 6 {
		t.Errorf("B: %d objects, %d shallow; want 6, 0", res.Objects, res.Shallow)
	}
	// Without the prefix or a declared boundary, the walk fails.
	if _, err := Pack(ctx, d, PackOptions{Revisions: []string{fork.ID.String()}, Store: true}); err != nil {
		t.Fatalf("pack --store: %v", err)
	}
	if _, err := os.Stat(filepath.Join(d.Root(), "packs", id[len("sha256:"):]+".pack")); err != nil {
		t.Errorf("stored pack: %v", err)
	}
}

func TestUnpackRefusesBadFramesWritingNothing(t *testing.T) {
	ctx := context.Background()
	a := newRepo(t, objects.BLAKE3)
	run, _ := putChainRun(t, a, "x", 2)
	file, _ := packTo(t, a, run.String())
	frame, _ := os.ReadFile(file)

	cases := map[string]struct {
		frame  []byte
		reason objects.Reason
	}{
		"magic":    {append([]byte("TINEPACK2\x00"), frame[10:]...), objects.ReasonPackBadMagic},
		"checksum": {append(append(append([]byte{}, frame[:10]...), make([]byte, 32)...), frame[42:]...), objects.ReasonPackChecksumMismatch},
	}
	// A pack of the run alone, declaring no boundary: its event links
	// resolve nowhere in an empty repository.
	cases["unresolved"] = struct {
		frame  []byte
		reason objects.Reason
	}{rawFrame(t, mustGet(t, a, run)), objects.ReasonPackUnresolvedLink}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := newRepo(t, objects.BLAKE3)
			p := filepath.Join(t.TempDir(), "bad.tinepack")
			os.WriteFile(p, c.frame, 0o644)
			_, err := Unpack(ctx, b, UnpackOptions{Path: p})
			if r, _ := objects.ReasonOf(err); r != c.reason {
				t.Fatalf("reason %q (%v), want %q", r, err, c.reason)
			}
			if res := fsckClean(t, b); res.Objects != 0 || res.Shallow != 0 {
				t.Errorf("refused pack wrote %d objects, %d shallow", res.Objects, res.Shallow)
			}
		})
	}
}

// mustGet reads id from r.
func mustGet(t *testing.T, r *Repo, id objects.OID) *objects.Object {
	t.Helper()
	o, err := r.Objects().Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// rawFrame builds a TINEPACK3 frame of objs with an empty shallow list and
// no checks, as a hostile or buggy writer would.
func rawFrame(t *testing.T, objs ...*objects.Object) []byte {
	t.Helper()
	body := []byte(`{"objects":[`)
	for i, o := range objs {
		if i > 0 {
			body = append(body, ',')
		}
		body = fmt.Appendf(body, `{"data":"%s","id":"%s"}`, base64.StdEncoding.EncodeToString(o.Stored()), o.ID)
	}
	body = append(body, `],"shallow":[],"version":1}`...)
	sum := sha256.Sum256(body)
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, 9)
	zw.Write(body)
	zw.Close()
	return append(append([]byte(objects.PackMagic), sum[:]...), z.Bytes()...)
}
