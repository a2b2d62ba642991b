package refs

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
)

// countingGetter is memObjects counting its reads: an UpdateHeld target
// must be checked without one.
type countingGetter struct {
	*memObjects
	gets atomic.Int64
}

func (c *countingGetter) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	c.gets.Add(1)
	return c.memObjects.Get(ctx, id)
}

func TestUpdateHeldReadsNoTarget(t *testing.T) {
	ctx := context.Background()
	g := &countingGetter{memObjects: newMem()}
	s := Open(t.TempDir(), objects.BLAKE3, g, WithClock(tickClock()))
	var held []*objects.Object
	for i := range 50 {
		o, _ := g.memObjects.Get(ctx, g.run(objects.BLAKE3, fmt.Sprint("run ", i)))
		held = append(held, o)
	}
	tx := s.NewTransaction("t")
	for i, o := range held {
		tx.UpdateHeld(fmt.Sprintf("experiments/l/b%d", i), o, ExpectAbsent)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := g.gets.Load(); n != 0 {
		t.Fatalf("UpdateHeld read %d targets back, want 0", n)
	}
	for i, o := range held {
		name := fmt.Sprintf("experiments/l/b%d", i)
		if got := mustRead(t, s, name); got != o.ID {
			t.Fatalf("%s = %s, want %s", name, got, o.ID)
		}
		if len(mustLog(t, s, name)) != 1 {
			t.Fatalf("%s has no reflog row", name)
		}
	}
	noLocks(t, s)
	// Update still reads its target.
	tx = s.NewTransaction("t")
	tx.Update("experiments/l/b0", held[1].ID, ExpectValue(held[0].ID))
	if err := tx.Commit(ctx); err != nil || g.gets.Load() != 1 {
		t.Fatalf("Update: %v, %d reads", err, g.gets.Load())
	}
}

func TestUpdateHeldRefusesWhatAFetchRefuses(t *testing.T) {
	ctx := context.Background()
	g := newMem()
	s := Open(t.TempDir(), objects.BLAKE3, g, WithClock(tickClock()))
	stored, _ := g.Get(ctx, g.run(objects.BLAKE3, "stored"))
	blob, _ := g.Get(ctx, g.put(objects.BLAKE3, objects.TypeBlob, "bytes", objects.Value{}))
	liar := *stored
	liar.Type = objects.TypeBlob
	other, _ := g.Get(ctx, g.run(objects.SHA256, "other profile"))
	for _, c := range []struct {
		name string
		o    *objects.Object
		want objects.Reason
	}{
		{"blob under experiments/", blob, objects.ReasonRefTargetType},
		{"type disagrees with oid", &liar, objects.ReasonEnvelopeOidMismatch},
		{"other hash profile", other, objects.ReasonOidMalformed},
		{"no oid", &objects.Object{Type: objects.TypeRun}, objects.ReasonOidMalformed},
		{"no object", nil, objects.ReasonOidMalformed},
	} {
		tx := s.NewTransaction("t")
		tx.UpdateHeld("experiments/l/ok", stored, ExpectAbsent)
		tx.UpdateHeld("experiments/l/bad", c.o, ExpectAbsent)
		err := tx.Commit(ctx)
		if fe := (*objects.FormatError)(nil); !errors.As(err, &fe) || fe.Reason != c.want {
			t.Fatalf("%s: Commit = %v, want %s", c.name, err, c.want)
		}
		if _, err := s.Read(ctx, "experiments/l/ok"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s: a refused transaction moved a ref", c.name)
		}
	}
}
