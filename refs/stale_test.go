package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// guardByPath returns the Guard at the slash path rel, or nil.
func guardByPath(gs []Guard, rel string) *Guard {
	for i := range gs {
		if gs[i].Path == rel {
			return &gs[i]
		}
	}
	return nil
}

// exists reports whether the repository-relative path exists.
func exists(s *Store, rel string) bool {
	_, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(rel)))
	return err == nil
}

func TestStaleGuardsLiveAndDead(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1, r2 := g.run(objects.BLAKE3, "1"), g.run(objects.BLAKE3, "2")
	if err := s.Create(ctx, "heads/dead", r1, "t"); err != nil {
		t.Fatal(err)
	}
	// A live writer in this process: flocks belong to open files, so the
	// probe's own open cannot take them.
	live, err := s.lockRef(ctx, "heads/live", "live-owner")
	if err != nil {
		t.Fatal(err)
	}
	defer live.release()
	if err := s.stage([]*txOp{{kind: opUpdate, norm: "heads/live", newID: r2}}, false); err != nil {
		t.Fatal(err)
	}
	// Leftovers of dead writers: files nobody flocks.
	dead := map[string]string{
		"refs/heads/dead.lock":                          "0123456789abcdef0123456789abcdef",
		"refs/heads/dead..lock":                         string(EncodeRefFile(r2)),
		"refs/heads/orphan..lock":                       string(EncodeRefFile(r2)),
		"refs/tags/deep/er/x.lock":                      "fedcba9876543210fedcba9876543210",
		"shallow.lock":                                  "",
		".tmp-shallow-123":                              "half",
		"refs-txn/00000000000000000000000000000000.tmp": `{"version":1,"own`,
	}
	for rel, body := range dead {
		p := filepath.Join(s.root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gs, err := s.StaleGuards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]GuardKind{
		"refs/heads/live.lock": GuardRef, "refs/heads/live..lock": GuardStaging,
		"refs/heads/dead.lock": GuardRef, "refs/heads/dead..lock": GuardStaging, "refs/heads/orphan..lock": GuardStaging,
		"refs/tags/deep/er/x.lock": GuardRef, "shallow.lock": GuardShallow, ".tmp-shallow-123": GuardShallowTemp,
		"refs-txn/00000000000000000000000000000000.tmp": GuardJournal,
	}
	if len(gs) != len(want) {
		t.Fatalf("StaleGuards found %d files, want %d: %+v", len(gs), len(want), gs)
	}
	for rel, kind := range want {
		gd := guardByPath(gs, rel)
		if gd == nil || gd.Kind != kind {
			t.Fatalf("%s: %+v, want kind %s", rel, gd, kind)
		}
		if wantAlive := rel == "refs/heads/live.lock" || rel == "refs/heads/live..lock"; gd.Alive != wantAlive {
			t.Errorf("%s: alive %v, want %v", rel, gd.Alive, wantAlive)
		}
		if gd.ModTime.IsZero() || gd.Age == 0 {
			t.Errorf("%s: no time: %+v", rel, gd)
		}
	}
	if gd := guardByPath(gs, "refs/tags/deep/er/x.lock"); gd.Ref != "tags/deep/er/x" {
		t.Errorf("ref of a nested guard: %q", gd.Ref)
	}
	// A cutoff in the past keeps the foreign guards (written by this
	// test, not read-only as tine's are: their writer cannot be probed)
	// and what depends on them. The torn journal and the orphaned staging
	// file are a dead writer's whatever their age.
	removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{OlderThan: time.Now().Add(-time.Hour)})
	if want := []string{"refs-txn/00000000000000000000000000000000.tmp", "refs/heads/orphan..lock"}; err != nil || !slices.Equal(removed, want) {
		t.Fatalf("with a cutoff an hour ago: %v, %v; want %v", removed, err, want)
	}
	removed, err = s.RemoveStaleGuards(ctx, RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantRemoved := []string{".tmp-shallow-123", "refs/heads/dead..lock", "refs/heads/dead.lock", "refs/tags/deep/er/x.lock", "shallow.lock"}
	if !slices.Equal(removed, wantRemoved) {
		t.Fatalf("removed %v, want %v", removed, wantRemoved)
	}
	if !exists(s, "refs/heads/live.lock") || !exists(s, "refs/heads/live..lock") {
		t.Fatal("a live writer's guard or staging file was removed")
	}
	if exists(s, "refs/tags/deep") {
		t.Error("emptied directories were not pruned")
	}
	// The dead guard no longer blocks its ref; the live one still does.
	if err := s.Update(ctx, "heads/dead", r2, r1, "t"); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "heads/live", r1, "t"); !errors.Is(err, ErrLocked) {
		t.Fatalf("update under a live guard: %v", err)
	}
	if err := writeShallow(ctx, s, nil); err != nil {
		t.Fatal(err)
	}
	live.release()
	os.Remove(s.refPath("heads/live") + stagingSuffix)
	if gs, err := s.StaleGuards(ctx); err != nil || len(gs) != 0 {
		t.Fatalf("after release: %+v, %v", gs, err)
	}
	noLocks(t, s)
}

// TestRemoverWaitsForGuardWindow stops a writer between creating its guard
// and flocking it, and runs a remover then: it must wait for the gate
// instead of taking the unflocked guard for a dead writer's.
func TestRemoverWaitsForGuardWindow(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1 := g.run(objects.BLAKE3, "1")
	type result struct {
		removed []string
		err     error
	}
	done := make(chan result, 1)
	windows := 0
	guardWindowHook = func(path string) {
		windows++
		go func() {
			removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{})
			done <- result{removed, err}
		}()
		select {
		case r := <-done:
			t.Errorf("remover finished while a guard was unflocked: %v, %v", r.removed, r.err)
			done <- r
		case <-time.After(200 * time.Millisecond):
		}
		if _, err := os.Lstat(path); err != nil {
			t.Errorf("guard removed inside its window: %v", err)
		}
	}
	defer func() { guardWindowHook = nil }()
	if err := s.Create(ctx, "heads/main", r1, "w"); err != nil {
		t.Fatalf("writer: %v", err)
	}
	guardWindowHook = nil
	r := <-done
	if r.err != nil || len(r.removed) != 0 || windows != 1 {
		t.Fatalf("remover: %v, %v (windows %d)", r.removed, r.err, windows)
	}
	if mustRead(t, s, "heads/main") != r1 {
		t.Fatal("write lost")
	}
	noLocks(t, s)
}

// TestRemoverNeverTouchesLiveWriters runs writers and a remover at once:
// every guard the remover sees belongs to a live writer, so it must remove
// nothing, and every update must succeed or fail cleanly.
func TestRemoverNeverTouchesLiveWriters(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	const writers, rounds = 6, 40
	ids := make([]objects.OID, writers*rounds)
	for i := range ids {
		ids[i] = g.run(objects.BLAKE3, fmt.Sprint(i))
	}
	stop := make(chan struct{})
	var removerErr error
	var removedAny []string
	var wg, rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			removed, err := s.RemoveStaleGuards(ctx, RemoveOptions{})
			if err != nil {
				removerErr = err
				return
			}
			removedAny = append(removedAny, removed...)
			if _, err := s.StaleGuards(ctx); err != nil {
				removerErr = err
				return
			}
		}
	}()
	errs := make(chan error, writers*rounds)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				id := ids[w*rounds+r]
				var err error
				if r%3 == 0 {
					tx := s.NewTransaction("w")
					tx.Update("heads/a", id, ExpectAny)
					tx.Update("heads/b", id, ExpectAny)
					err = tx.Commit(ctx)
				} else {
					err = s.UpdateExpect(ctx, fmt.Sprintf("heads/%c", 'a'+r%3), id, ExpectAny, "w")
				}
				if err != nil && !errors.Is(err, ErrLocked) {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("writer: %v", err)
	}
	if removerErr != nil || len(removedAny) != 0 {
		t.Fatalf("remover: removed %v, err %v", removedAny, removerErr)
	}
	for _, name := range []string{"heads/a", "heads/b", "heads/c"} {
		prev := objects.OID{}
		for i, e := range mustLog(t, s, name) {
			if e.Old != prev {
				t.Fatalf("%s row %d: old %s, want %s: an update was lost", name, i, e.Old, prev)
			}
			prev = e.New
		}
		if cur, err := s.Read(t.Context(), name); err == nil && cur != prev {
			t.Fatalf("%s is %s, its reflog ends at %s", name, cur, prev)
		}
	}
	noLocks(t, s)
}
