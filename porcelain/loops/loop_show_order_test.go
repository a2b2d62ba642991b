package loops_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/loops"
)

// orderedStore is a store with its own read order (objects.ReadOrderer),
// the reverse of the ids' order, recording the runs it is asked for.
type orderedStore struct {
	objects.Store
	mu   sync.Mutex
	runs []objects.OID
}

func (s *orderedStore) SortForRead(ids []objects.OID) {
	slices.SortFunc(ids, func(a, b objects.OID) int { return b.Compare(a) })
}

func (s *orderedStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if id.Type == objects.TypeRun {
		s.mu.Lock()
		s.runs = append(s.runs, id)
		s.mu.Unlock()
	}
	return s.Store.Get(ctx, id)
}

// TestLoopShowReadsRunsInStoreOrder: loop show reads a loop's runs in the
// store's read order, each once, and shows exactly what it shows reading
// them in ref order (a store without an order).
func TestLoopShowReadsRunsInStoreOrder(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	opt := thousandNumeric("order")
	opt.MaxSteps = 40
	if _, err := loops.LoopRun(ctx, r, opt); err != nil {
		t.Fatal(err)
	}
	plain, err := loops.LoopShow(ctx, r, "order")
	if err != nil {
		t.Fatal(err)
	}
	st := &orderedStore{}
	c, err := plumbing.OpenWith(r.Root(), plumbing.OpenOptions{WrapObjects: func(s objects.Store) objects.Store {
		st.Store = s
		return st
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := loops.LoopShow(ctx, c, "order")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Fatalf("loop show changed with the read order:\n%s\nwant\n%s", b, a)
	}
	want := slices.Clone(st.runs)
	slices.SortFunc(want, func(a, b objects.OID) int { return b.Compare(a) })
	want = slices.Compact(want)
	if len(st.runs) < 40 || !slices.Equal(st.runs, want) {
		t.Fatalf("loop show read %d runs in an order other than the store's, or some twice", len(st.runs))
	}
}
