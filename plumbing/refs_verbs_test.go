package plumbing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

func TestUpdateRefCAS(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run1, _ := putChainRun(t, r, "a", 2)
		run2, _ := putChainRun(t, r, "b", 1)
		res, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "refs/heads/main", New: run1.String(), Create: true})
		if err != nil || res.Ref != "heads/main" || res.Op != "create" || res.Old != "" || res.New != run1.String() {
			t.Fatalf("create: %+v, %v", res, err)
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run2.String(), Create: true}); !errors.Is(err, refs.ErrStale) {
			t.Fatalf("create over existing: %v", err)
		}
		// A stale old value names expected and actual.
		_, err = UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run2.String(), Old: run2.String()})
		var se *refs.StaleError
		if !errors.As(err, &se) || se.Expected != run2 || se.Actual != run1 {
			t.Fatalf("stale: %v", err)
		}
		res, err = UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run2.String(), Old: run1.String(), Actor: "me"})
		if err != nil || res.Old != run1.String() {
			t.Fatalf("cas: %+v, %v", res, err)
		}
		// Without --old any value is replaced.
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run1.String()}); err != nil {
			t.Fatal(err)
		}
		// The type rule: heads/ holds runs.
		blob := put(t, r, objects.NewBlob(r.Algo(), []byte("x")))
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/b", New: blob.String()}); !objects.HasReason(err, objects.ReasonRefTargetType) {
			t.Fatalf("blob on heads: %v", err)
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "tags/b", New: blob.String()}); err != nil {
			t.Fatalf("blob on tags: %v", err)
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "Heads/X", New: run1.String()}); err == nil {
			t.Fatal("illegal ref name accepted")
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/x", New: "nosuch"}); !errors.Is(err, ErrUnknownRevision) {
			t.Fatalf("unknown new: %v", err)
		}
		// delete-ref: stale, then done, then missing.
		if _, err := DeleteRef(ctx, r, DeleteRefOptions{Ref: "heads/main", Old: run2.String()}); !errors.As(err, &se) {
			t.Fatalf("stale delete: %v", err)
		}
		if d, err := DeleteRef(ctx, r, DeleteRefOptions{Ref: "heads/main", Old: run1.String()}); err != nil || d.Old != run1.String() {
			t.Fatalf("delete: %+v, %v", d, err)
		}
		if _, err := DeleteRef(ctx, r, DeleteRefOptions{Ref: "heads/main"}); err == nil {
			t.Fatal("deleting a missing ref succeeded")
		}
	})
}

func TestUpdateRefStdin(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run1, _ := putChainRun(t, r, "a", 1)
		run2, _ := putChainRun(t, r, "b", 1)
		in := "# set up\ncreate heads/main " + run1.String() + "\n\ncreate experiments/x " + run1.String()
		res, err := UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: strings.NewReader(in)})
		if err != nil || len(res.Changes) != 2 {
			t.Fatalf("create two: %+v, %v", res, err)
		}
		// All or nothing: the verify fails, so heads/main must not move.
		in = "update heads/main " + run2.String() + " " + run1.String() + "\nverify experiments/x " + run2.String() + "\n"
		if _, err := UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: strings.NewReader(in)}); !errors.Is(err, refs.ErrStale) {
			t.Fatalf("failing verify: %v", err)
		}
		if id, _ := r.Refs().Read(t.Context(), "heads/main"); id != run1 {
			t.Fatalf("heads/main moved to %s", id)
		}
		in = "update heads/main " + run2.String() + " " + run1.String() + "\nverify experiments/x " + run1.String() + "\ndelete experiments/x\nverify tags/none\n"
		if _, err := UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: strings.NewReader(in)}); !errors.Is(err, ErrBadInput) {
			t.Fatalf("ref named twice: %v", err)
		}
		in = "update heads/main " + run2.String() + " " + run1.String() + "\ndelete experiments/x " + run1.String() + "\nverify tags/none absent\n"
		if _, err := UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: strings.NewReader(in)}); err != nil {
			t.Fatal(err)
		}
		if id, _ := r.Refs().Read(t.Context(), "heads/main"); id != run2 {
			t.Fatalf("heads/main = %s", id)
		}
		if _, err := r.Refs().Read(t.Context(), "experiments/x"); !errors.Is(err, refs.ErrNotFound) {
			t.Fatalf("experiments/x: %v", err)
		}
		for _, bad := range []string{
			"move heads/main " + run1.String(),
			"update heads/main",
			"update  heads/main " + run1.String(),
			"update heads/main " + run1.String() + "\r",
			"create heads/main " + run1.String() + " extra",
			"delete heads/main absent",
			strings.Repeat("#", MaxStdinLine+1),
			strings.Repeat("\n", MaxStdinLines+1),
		} {
			if _, err := UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: strings.NewReader(bad)}); !errors.Is(err, ErrBadInput) {
				t.Errorf("%.40q: %v", bad, err)
			}
		}
	})
}

func TestListRefsAndReflog(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run1, _ := putChainRun(t, r, "a", 1)
		run2, _ := putChainRun(t, r, "b", 1)
		for _, u := range []UpdateRefOptions{
			{Ref: "heads/main", New: run1.String()}, {Ref: "heads/main", New: run2.String()},
			{Ref: "heads/mainx", New: run1.String()}, {Ref: "tags/v1", New: run1.String()},
		} {
			if _, err := UpdateRef(ctx, r, u); err != nil {
				t.Fatal(err)
			}
		}
		all, err := ListRefs(ctx, r, ListRefsOptions{})
		if err != nil || len(all.Refs) != 3 || all.Refs[0].Name != "heads/main" || all.Refs[0].OID != run2.String() || all.Refs[0].Type != objects.TypeRun {
			t.Fatalf("all refs: %+v, %v", all, err)
		}
		for prefix, want := range map[string]int{"heads": 2, "refs/heads/": 2, "heads/main": 1, "tags": 1, "remotes": 0, "refs": 3} {
			got, err := ListRefs(ctx, r, ListRefsOptions{Prefix: prefix})
			if err != nil || len(got.Refs) != want {
				t.Errorf("prefix %q: %+v, %v", prefix, got, err)
			}
		}
		log, err := Reflog(ctx, r, ReflogOptions{Ref: "refs/heads/main"})
		if err != nil || len(log.Entries) != 2 {
			t.Fatalf("reflog: %+v, %v", log, err)
		}
		if e := log.Entries[0]; e.Index != 0 || e.New != run2.String() || e.Old != run1.String() || e.Actor != DefaultActor {
			t.Fatalf("newest row: %+v", e)
		}
		if e := log.Entries[1]; e.New != run1.String() || e.Old != "" {
			t.Fatalf("oldest row: %+v", e)
		}
		// A ref that exists without rows has an empty history; a name with
		// neither a ref nor rows is an unknown revision.
		if err := os.Remove(filepath.Join(r.Root(), "logs", "heads", "mainx")); err != nil {
			t.Fatal(err)
		}
		if log, err := Reflog(ctx, r, ReflogOptions{Ref: "heads/mainx"}); err != nil || len(log.Entries) != 0 {
			t.Fatalf("empty reflog: %+v, %v", log, err)
		}
		if log, err := Reflog(ctx, r, ReflogOptions{Ref: "heads/never"}); !errors.Is(err, ErrUnknownRevision) || !strings.Contains(fmt.Sprint(err), "no ref heads/never") {
			t.Fatalf("reflog of no ref: %+v, %v", log, err)
		}
	})
}
