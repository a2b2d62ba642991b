package loops_test

import (
	"context"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/loops"
)

// countingStore counts what a loop costs its object store: reads (Get) by
// type, and batches written (PutBatch, one pack and its fsyncs each).
type countingStore struct {
	objects.Store
	mu      sync.Mutex
	reads   map[objects.Type]int
	batches int
}

func (s *countingStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	s.mu.Lock()
	s.reads[id.Type]++
	s.mu.Unlock()
	return s.Store.Get(ctx, id)
}

func (s *countingStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	s.mu.Lock()
	s.batches++
	s.mu.Unlock()
	return objects.PutAll(ctx, s.Store, objs)
}

// openCounting reopens r's repository with its object store counted.
func openCounting(t *testing.T, r *plumbing.Repo) (*plumbing.Repo, *countingStore) {
	t.Helper()
	cs := &countingStore{reads: map[objects.Type]int{}}
	c, err := plumbing.OpenWith(r.Root(), plumbing.OpenOptions{WrapObjects: func(s objects.Store) objects.Store {
		cs.Store = s
		return cs
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, cs
}

// TestLoopCheckpointCost: a loop's checkpoint writes one batch and reads
// nothing back: the ref transaction takes the runs it just wrote as held
// (refs.Transaction.UpdateHeld), and every link is checked against what
// the loop queued. It read every run back for its ref's target check.
func TestLoopCheckpointCost(t *testing.T) {
	r, cs := openCounting(t, newRepo(t))
	opt := thousandNumeric("cost")
	opt.MaxSteps, opt.CheckpointEvery = 200, 8
	res, err := loops.LoopRun(context.Background(), r, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalSteps != 200 || len(res.Branches) != 200 {
		t.Fatalf("%d steps, %d branches, want 200 of each", res.TotalSteps, len(res.Branches))
	}
	// A checkpoint every 8 iterations, and the last at Finish.
	if c := res.Written.Checkpoints; c < 200/8 || c > 200/8+1 {
		t.Fatalf("%d checkpoints for 200 iterations every 8", c)
	}
	if cs.batches != res.Written.Checkpoints {
		t.Fatalf("%d batches written for %d checkpoints, want one each", cs.batches, res.Written.Checkpoints)
	}
	if len(cs.reads) != 0 {
		t.Fatalf("the loop read objects back: %v", cs.reads)
	}
	requireFsck(t, r)
}
