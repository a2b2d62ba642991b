package plumbing

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// fsckOf runs Fsck and fails the test on an operational error.
func fsckOf(t *testing.T, r *Repo, opt FsckOptions) *FsckResult {
	t.Helper()
	res, err := Fsck(context.Background(), r, opt)
	if err != nil {
		t.Fatalf("Fsck: %v", err)
	}
	return res
}

// findProblem returns the first finding with code among ps.
func findProblem(ps []Problem, code string) *Problem {
	for i := range ps {
		if ps[i].Code == code {
			return &ps[i]
		}
	}
	return nil
}

// objectFile returns the loose file of id.
func objectFile(t *testing.T, r *Repo, id objects.OID) string {
	t.Helper()
	rel, err := objects.LoosePath(id)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(r.Root(), filepath.FromSlash(rel))
}

// writeFile replaces a repository file, bypassing every check.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFsckClean(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run, _ := putChainRun(t, r, "a", 3)
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); err != nil {
			t.Fatal(err)
		}
		ann := put(t, r, jsonObject(t, r.Algo(), objects.TypeAnnotation, `{"target_id":"`+run.String()+`","value":{}}`))
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "annotations/" + run.Hex(), New: ann.String()}); err != nil {
			t.Fatal(err)
		}
		res := fsckOf(t, r, FsckOptions{})
		if !res.OK() || len(res.Warnings) != 0 || res.Objects != 5 || res.Refs != 2 || res.ByType[objects.TypeEvent] != 3 {
			t.Fatalf("clean repo: %+v", res)
		}
	})
}

func TestFsckCorruptObject(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		run, evs := putChainRun(t, r, "a", 2)
		// Another valid envelope under the first event's name.
		other := jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"forged"}`)
		writeFile(t, objectFile(t, r, evs[0]), other.Stored())
		res := fsckOf(t, r, FsckOptions{})
		p := findProblem(res.Problems, ProblemObjectCorrupt)
		if p == nil || p.Object != evs[0].String() || p.Reason != objects.ReasonEnvelopeOidMismatch {
			t.Fatalf("corrupt event not reported: %+v", res.Problems)
		}
		// Garbage bytes are corrupt too, with their decode reason.
		writeFile(t, objectFile(t, r, run), []byte("not an envelope"))
		res = fsckOf(t, r, FsckOptions{})
		found := false
		for _, p := range res.Problems {
			found = found || (p.Code == ProblemObjectCorrupt && p.Object == run.String() && p.Reason != "")
		}
		if !found {
			t.Fatalf("garbage run not reported: %+v", res.Problems)
		}
	})
}

func TestFsckMissingLinkAndShallow(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		run, evs := putChainRun(t, r, "a", 2)
		if err := os.Remove(objectFile(t, r, evs[0])); err != nil {
			t.Fatal(err)
		}
		res := fsckOf(t, r, FsckOptions{})
		if p := findProblem(res.Problems, ProblemMissingLink); p == nil || p.Reason != objects.ReasonLinkMissingObject {
			t.Fatalf("missing link not reported: %+v", res.Problems)
		}
		objectsNamed := map[string]bool{}
		for _, p := range res.Problems {
			objectsNamed[p.Object] = true
		}
		if !objectsNamed[evs[1].String()] || !objectsNamed[run.String()] {
			t.Fatalf("problems do not name the linking objects: %+v", res.Problems)
		}
		// Declared shallow, the missing event is a legal boundary.
		writeFile(t, filepath.Join(r.Root(), "shallow"), refs.EncodeShallow([]objects.OID{evs[0]}))
		if res := fsckOf(t, r, FsckOptions{}); !res.OK() || res.Shallow != 1 {
			t.Fatalf("shallow boundary: %+v", res)
		}
		writeFile(t, filepath.Join(r.Root(), "shallow"), []byte("nonsense\n"))
		if res := fsckOf(t, r, FsckOptions{}); findProblem(res.Problems, ProblemShallow) == nil {
			t.Fatalf("bad shallow file: %+v", res.Problems)
		}
	})
}

func TestFsckRefs(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run, _ := putChainRun(t, r, "a", 1)
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); err != nil {
			t.Fatal(err)
		}
		blob := put(t, r, objects.NewBlob(r.Algo(), []byte("b")))
		missing := r.Algo().Derive(objects.TypeRun, 1, []byte(`{"events":[]}`))
		refsDir := filepath.Join(r.Root(), "refs")
		writeFile(t, filepath.Join(refsDir, "heads", "gone"), []byte(missing.String()+"\n"))
		writeFile(t, filepath.Join(refsDir, "heads", "blob"), []byte(blob.String()+"\n"))
		writeFile(t, filepath.Join(refsDir, "heads", "Upper"), []byte(run.String()+"\n"))
		writeFile(t, filepath.Join(refsDir, "heads", "spaces"), []byte(run.String()+" \n"))
		res := fsckOf(t, r, FsckOptions{})
		want := map[string]string{ProblemRefMissing: "heads/gone", ProblemRefTarget: "heads/blob", ProblemRefName: "", ProblemRefUnreadable: "heads/spaces"}
		for code, ref := range want {
			p := findProblem(res.Problems, code)
			if p == nil || p.Ref != ref {
				t.Errorf("%s: %+v", code, p)
			}
		}
		if p := findProblem(res.Problems, ProblemRefName); p == nil || p.Path != "refs/heads/Upper" {
			t.Errorf("bad name: %+v", p)
		}
		if len(res.Problems) != 4 {
			t.Errorf("problems: %+v", res.Problems)
		}
	})
}

func TestFsckLeftoversAndRecovery(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run, _ := putChainRun(t, r, "a", 1)
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); err != nil {
			t.Fatal(err)
		}
		guard := filepath.Join(r.Root(), "refs", "heads", "main.lock")
		writeFile(t, guard, []byte("0123456789abcdef0123456789abcdef"))
		tmp := filepath.Join(r.Root(), "objects", "event", ".tmp-crash")
		writeFile(t, tmp, []byte("half"))
		stray := filepath.Join(filepath.Dir(objectFile(t, r, run)), "README")
		writeFile(t, stray, []byte("x"))
		logf := filepath.Join(r.Root(), "logs", "heads", "main")
		f, err := os.OpenFile(logf, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"actor":"local","new":`)
		f.Close()
		res := fsckOf(t, r, FsckOptions{})
		if !res.OK() {
			t.Fatalf("leftovers are not corruption: %+v", res.Problems)
		}
		for _, code := range []string{WarnStaleLock, WarnTempFile, WarnStray, WarnTornReflog} {
			if findProblem(res.Warnings, code) == nil {
				t.Errorf("no %s warning: %+v", code, res.Warnings)
			}
		}
		// A foreign guard (written by another tool, which takes no flock)
		// may belong to a live writer: it blocks updates until removed.
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); !errors.Is(err, refs.ErrLocked) {
			t.Fatalf("update under a foreign guard: %v", err)
		}
		// Young leftovers whose writer cannot be probed survive an age
		// cutoff...
		res = fsckOf(t, r, FsckOptions{RemoveStale: true, StaleAfter: DefaultStaleAfter})
		if len(res.Removed) != 0 || res.RemovedTemp != 0 {
			t.Fatalf("removed young leftovers: %+v", res)
		}
		// ...and go when the clock says they are old.
		later := func() time.Time { return time.Now().Add(2 * DefaultStaleAfter) }
		res = fsckOf(t, r, FsckOptions{RemoveStale: true, StaleAfter: DefaultStaleAfter, Now: later})
		if len(res.Removed) != 1 || res.Removed[0] != "refs/heads/main.lock" || res.RemovedTemp != 1 {
			t.Fatalf("removal: %+v", res)
		}
		if findProblem(res.Warnings, WarnStaleLock) != nil || findProblem(res.Warnings, WarnTempFile) != nil {
			t.Fatalf("removed leftovers still warned: %+v", res.Warnings)
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); err != nil {
			t.Fatalf("update after recovery: %v", err)
		}
		if res := fsckOf(t, r, FsckOptions{}); findProblem(res.Warnings, WarnTornReflog) != nil {
			t.Fatalf("torn row not cut by the next update: %+v", res.Warnings)
		}
	})
}

func TestFsckEventCycle(t *testing.T) {
	a := objects.SHA256
	ids := []objects.OID{a.Derive(objects.TypeEvent, 1, []byte("1")), a.Derive(objects.TypeEvent, 1, []byte("2")), a.Derive(objects.TypeEvent, 1, []byte("3"))}
	// Forge decoded events 0 -> 1 -> 2 -> 0 (content addressing makes this
	// unreachable on disk without a hash collision).
	f := &fsck{ctx: context.Background(), r: &Repo{algo: a}, res: &FsckResult{}, objs: map[objects.OID]*fsckEntry{}}
	for i, id := range ids {
		parent := ids[(i+1)%len(ids)]
		f.objs[id] = &fsckEntry{obj: jsonObject(t, a, objects.TypeEvent, `{"parent_ids":["`+parent.String()+`"]}`)}
	}
	if err := f.checkEventDAG(); err != nil {
		t.Fatal(err)
	}
	if len(f.res.Problems) != 1 || f.res.Problems[0].Code != ProblemEventCycle {
		t.Fatalf("cycle: %+v", f.res.Problems)
	}
	delete(f.objs, ids[2])
	f.res.Problems = nil
	if err := f.checkEventDAG(); err != nil || len(f.res.Problems) != 0 {
		t.Fatalf("acyclic graph: %+v, %v", f.res.Problems, err)
	}
}
