package plumbing

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
)

// TestIndexVerbsAndFsck builds, checks and damages the catalog through the
// plumbing verbs, and shows fsck never reads it: a fresh, a damaged and a
// half-written catalog all leave fsck without problems or warnings.
func TestIndexVerbsAndFsck(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run, _ := putChainRun(t, r, "main", 3)
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.String()}); err != nil {
			t.Fatal(err)
		}
		put(t, r, jsonObject(t, r.Algo(), objects.TypeAttestation, fmt.Sprintf(
			`{"claim":{"kind":"evaluation","scores":{"acc":0.75}},"evidence_ids":[],"signature":null,"signer":"ci","target_id":%q}`, run)))

		st, err := IndexStatus(ctx, r, IndexStatusOptions{})
		if err != nil || st.State != index.StateMissing || st.Path != IndexPath {
			t.Fatalf("status before build: %+v, %v", st, err)
		}
		res, err := IndexRebuild(ctx, r, IndexRebuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != index.ActionRebuilt || !res.Saved || res.Runs != 1 || res.Evaluations != 1 || res.Path != "objects/catalog/catalog" {
			t.Fatalf("rebuild: %+v", res)
		}
		st, err = IndexStatus(ctx, r, IndexStatusOptions{})
		if err != nil || st.State != index.StateFresh || st.Attestations != 1 {
			t.Fatalf("status after build: %+v, %v", st, err)
		}
		up, err := IndexUpdate(ctx, r, IndexUpdateOptions{})
		if err != nil || up.Action != index.ActionFresh {
			t.Fatalf("update of a fresh catalog: %+v, %v", up, err)
		}
		c, _, err := OpenIndex(r).Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev := c.Evaluations("acc", 0.5, index.Filter{RefPrefix: "heads"}); len(ev) != 1 || ev[0].Run != run {
			t.Fatalf("evaluations: %+v", ev)
		}

		cleanFsck(t, r, "with a fresh catalog")
		path := filepath.Join(r.Root(), filepath.FromSlash(IndexPath))
		if err := os.WriteFile(path, []byte("garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(path), ".tmp-catalog-123"), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		cleanFsck(t, r, "with a damaged catalog and a leftover temp file")
		st, err = IndexStatus(ctx, r, IndexStatusOptions{})
		if err != nil || st.State != index.StateCorrupt {
			t.Fatalf("status of a damaged catalog: %+v, %v", st, err)
		}
		up, err = IndexUpdate(ctx, r, IndexUpdateOptions{})
		if err != nil || up.Action != index.ActionRebuilt {
			t.Fatalf("update of a damaged catalog: %+v, %v", up, err)
		}
	})
}

// cleanFsck fails unless fsck reports neither problems nor warnings.
func cleanFsck(t *testing.T, r *Repo, when string) {
	t.Helper()
	res, err := Fsck(context.Background(), r, FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("fsck %s: problems %+v, warnings %+v", when, res.Problems, res.Warnings)
	}
}
