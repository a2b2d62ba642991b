package refs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// memObjects is a minimal objects.Getter for tests: objects are built
// directly, so ref tests do not depend on payload validation.
type memObjects struct {
	mu sync.Mutex
	m  map[objects.OID]*objects.Object
}

func newMem() *memObjects { return &memObjects{m: map[objects.OID]*objects.Object{}} }

func (g *memObjects) Get(_ context.Context, id objects.OID) (*objects.Object, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if o, ok := g.m[id]; ok {
		return o, nil
	}
	return nil, fmt.Errorf("object %s: %w", id, objects.ErrNotFound)
}

// put adds an object of type t with the given body and JSON value.
func (g *memObjects) put(a objects.Algo, t objects.Type, body string, v objects.Value) objects.OID {
	id := a.Derive(t, 1, []byte(body))
	g.mu.Lock()
	g.m[id] = &objects.Object{ID: id, Type: t, Schema: 1, Body: []byte(body), Value: v}
	g.mu.Unlock()
	return id
}

// run adds a run object distinguished by label.
func (g *memObjects) run(a objects.Algo, label string) objects.OID {
	return g.put(a, objects.TypeRun, `{"label":"`+label+`"}`, objects.Value{Kind: objects.KindObject})
}

// tickClock returns a clock that advances one second per call from a fixed
// instant.
func tickClock() func() time.Time {
	var mu sync.Mutex
	t := time.Unix(1757030400, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

// newTestStore returns a store on a fresh repository directory.
func newTestStore(t *testing.T, a objects.Algo) (*Store, *memObjects) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"refs/heads", "refs/tags", "refs/annotations", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g := newMem()
	return Open(root, a, g, WithClock(tickClock())), g
}

// mustRead reads a ref that must exist.
func mustRead(t *testing.T, s *Store, name string) objects.OID {
	t.Helper()
	id, err := s.Read(t.Context(), name)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return id
}

// mustLog reads a reflog that must be clean.
func mustLog(t *testing.T, s *Store, name string) []ReflogEntry {
	t.Helper()
	rr, err := s.ReadReflog(name)
	if err != nil || rr.TornBytes != 0 {
		t.Fatalf("ReadReflog(%s): %+v, %v", name, rr, err)
	}
	return rr.Entries
}

// noLocks fails if any guard or staging file is left under refs/.
func noLocks(t *testing.T, s *Store) {
	t.Helper()
	filepath.WalkDir(filepath.Join(s.root, "refs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isLockName(d.Name()) {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

// writeShallow replaces the shallow set with ids through UpdateShallow.
func writeShallow(ctx context.Context, s *Store, ids []objects.OID) error {
	return s.UpdateShallow(ctx, func([]objects.OID) ([]objects.OID, error) { return ids, nil })
}
