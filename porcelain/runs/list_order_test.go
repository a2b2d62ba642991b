package runs_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// reversedReads is a store whose read order (objects.ReadOrderer) is the
// reverse of the ids' order; it counts the reads of each object.
type reversedReads struct {
	objects.Getter
	reads map[objects.OID]int
}

func (s reversedReads) SortForRead(ids []objects.OID) {
	slices.SortFunc(ids, func(a, b objects.OID) int { return b.Compare(a) })
}

func (s reversedReads) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	s.reads[id]++
	return s.Getter.Get(ctx, id)
}

// TestListRunsReadOrder: the runs come in the store's read order, each
// read once; refs naming the same run come one after another in ref order;
// refs naming other objects are skipped.
func TestListRunsReadOrder(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := fakeClock(time.Unix(1700000000, 0), time.Second)
	byRef := map[string]objects.OID{}
	for _, n := range []string{"a", "b", "c", "d"} {
		res := appendEvent(t, r, "experiments/x/"+n, `{"kind":"note","time_unix":1,"n":"`+n+`"}`, now)
		byRef["experiments/x/"+n] = mustOID(t, res.Run)
	}
	if err := r.Refs().UpdateExpect(ctx, "tags/alias", byRef["experiments/x/b"], refs.ExpectAny, "alias"); err != nil {
		t.Fatal(err)
	}
	byRef["tags/alias"] = byRef["experiments/x/b"]
	ev := appendEvent(t, r, "heads/main", `{"kind":"note","time_unix":2}`, now)
	byRef["heads/main"] = mustOID(t, ev.Run)
	if err := r.Refs().UpdateExpect(ctx, "tags/ev", mustOID(t, ev.Event), refs.ExpectAny, "an event"); err != nil {
		t.Fatal(err)
	}

	src := reversedReads{Getter: r.Objects(), reads: map[objects.OID]int{}}
	var got []string
	err := runs.ListRunsReadOrder(ctx, r.Refs(), src, "", func(ref string, run *runs.Run) error {
		if run.ID != byRef[ref] {
			t.Errorf("%s: got run %s, want %s", ref, run.ID, byRef[ref])
		}
		got = append(got, ref)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each run once, in the store's order; its refs in name order.
	names := slices.Sorted(maps.Keys(byRef))
	var ids []objects.OID
	for _, n := range names {
		if !slices.Contains(ids, byRef[n]) {
			ids = append(ids, byRef[n])
		}
	}
	src.SortForRead(ids)
	var want []string
	for _, id := range ids {
		for _, n := range names {
			if byRef[n] == id {
				want = append(want, n)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q, want the store's read order %q", got, want)
	}
	for id, n := range src.reads {
		if n != 1 {
			t.Errorf("%s read %d times, want once", id, n)
		}
	}
}
