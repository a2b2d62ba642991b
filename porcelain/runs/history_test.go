package runs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// TestHistoryIndexDamageRebuilt: a layer flipped, truncated or replaced
// by one of another repository's hash makes log and diff answer what the
// run objects say, and the index is reset and refilled, never trusted.
func TestHistoryIndexDamageRebuilt(t *testing.T) {
	damage := map[string]func(t *testing.T, r *plumbing.Repo, layer string){
		"flipped": func(t *testing.T, _ *plumbing.Repo, layer string) {
			b, _ := os.ReadFile(layer)
			b[len(b)/3] ^= 0x10
			os.WriteFile(layer, b, 0o644)
		},
		"truncated": func(t *testing.T, _ *plumbing.Repo, layer string) {
			b, _ := os.ReadFile(layer)
			os.WriteFile(layer, b[:len(b)/2], 0o644)
		},
		"foreign hash": func(t *testing.T, r *plumbing.Repo, _ string) {
			// The whole index of a sha256 repository in place of this one's.
			other, _, err := plumbing.Init(t.TempDir(), "sha256")
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			writeChain(t, other, "heads/main", nil, 30, "o", false)
			if _, err := UpdateHistory(context.Background(), other); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(r.Root(), filepath.FromSlash(index.HistoryDir))
			os.RemoveAll(dst)
			if err := os.Rename(filepath.Join(other.Root(), filepath.FromSlash(index.HistoryDir)), dst); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r := lazyRepo(t)
			shared := writeChain(t, r, "heads/base", nil, 300, "s", false)
			writeChain(t, r, "heads/main", shared, 20, "a", false)
			writeChain(t, r, "experiments/b", shared, 20, "b", false)
			if rep, err := UpdateHistory(ctx, r); err != nil || rep.Added != 3 {
				t.Fatalf("UpdateHistory = %+v, %v", rep, err)
			}
			layers, _ := filepath.Glob(filepath.Join(r.Root(), filepath.FromSlash(index.HistoryDir), "*.layer"))
			if len(layers) == 0 {
				t.Fatal("no layer")
			}
			os.Chmod(layers[0], 0o644)
			f(t, r, layers[0])
			if h, err := index.OpenHistory(r.Root(), r.Algo()); err == nil {
				// A flipped event record opens; reading its block fails.
				hr, err := h.Run(runOf(t, r, "experiments/b"))
				if err == nil && hr != nil {
					err = h.Each(hr, 0, hr.Len, func(int, objects.OID, string) error { return nil })
				}
				h.Close()
				if !errors.Is(err, index.ErrHistoryCorrupt) {
					t.Fatalf("damaged index read: %v", err)
				}
			}
			setNoHistoryIndex(t, true)
			wantLog, err1 := Log(ctx, r, LogOptions{Rev: "heads/main", Limit: 20})
			wantDiff, err2 := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{})
			setNoHistoryIndex(t, false)
			gotLog, err3 := Log(ctx, r, LogOptions{Rev: "heads/main", Limit: 20})
			gotDiff, err4 := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{})
			for _, err := range []error{err1, err2, err3, err4} {
				if err != nil {
					t.Fatal(err)
				}
			}
			if a, b := jsonOf(t, wantLog), jsonOf(t, gotLog); a != b {
				t.Fatalf("log after damage:\n%s\nwant\n%s", b, a)
			}
			if a, b := jsonOf(t, wantDiff), jsonOf(t, gotDiff); a != b {
				t.Fatalf("diff after damage:\n%s\nwant\n%s", b, a)
			}
			// The reader that met the damage emptied the index (a damaged
			// event block is met only when read, past the log's); the
			// next reader refills it.
			if again, err := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{}); err != nil || jsonOf(t, again) != jsonOf(t, wantDiff) {
				t.Fatalf("diff after the reset: %v", err)
			}
			h, err := index.OpenHistory(r.Root(), r.Algo())
			if err != nil {
				t.Fatalf("index after a reader met damage: %v", err)
			}
			defer h.Close()
			if hr, err := h.Run(runOf(t, r, "experiments/b")); err != nil || hr == nil || hr.Len != 320 {
				t.Fatalf("refilled index: %v, %v", hr, err)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAppendIndexesNewEventsOnly: the writers' eager update indexes an
// append of 3 events onto a 2,000-event run by reading those 3 events
// (when the write did not hold them) and no run object, and the entry
// extends the old run's.
func TestAppendIndexesNewEventsOnly(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	ids := writeChain(t, r, "heads/main", nil, 2000, "m", false)
	prevID := runOf(t, r, "heads/main")
	if rep, err := UpdateHistory(ctx, r); err != nil || rep.Added != 1 {
		t.Fatalf("UpdateHistory = %+v, %v", rep, err)
	}
	writeChain(t, r, "heads/main", ids, 3, "n", false)
	prev, err := r.Objects().Get(ctx, prevID)
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Objects().Get(ctx, runOf(t, r, "heads/main"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := openHistory(r)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c := newCounting(r.Objects())
	add, ok := appendedRun(ctx, c, h, prev, nil, run, nil)
	if !ok || add.Base != prevID || add.Prefix != 2000 || len(add.Own) != 3 {
		t.Fatalf("append entry: ok %v, base %s, prefix %d, own %d", ok, add.Base, add.Prefix, len(add.Own))
	}
	if ev, _ := c.of(objects.TypeEvent); ev != 3 {
		t.Errorf("indexing the append read %d events, want 3", ev)
	}
	if n, _ := c.of(objects.TypeRun); n != 0 {
		t.Errorf("indexing the append read %d run objects, want 0", n)
	}
}
