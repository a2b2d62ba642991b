package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// Tests of lazy history through the exported API; they hold on the code
// before lazy history only where it already read no more than it showed.
// The helpers are shared with lazy_internal_test.go.

// countingGetter counts the objects read through it, by type and by oid.
type countingGetter struct {
	g     objects.Getter
	mu    sync.Mutex
	reads map[objects.OID]int
}

func newCounting(g objects.Getter) *countingGetter {
	return &countingGetter{g: g, reads: map[objects.OID]int{}}
}

// Get implements objects.Getter.
func (c *countingGetter) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	c.mu.Lock()
	c.reads[id]++
	c.mu.Unlock()
	return c.g.Get(ctx, id)
}

// of returns how many reads of type t there were, and the most times one
// object was read.
func (c *countingGetter) of(t objects.Type) (total, most int) {
	for id, n := range c.reads {
		if id.Type == t {
			total += n
			most = max(most, n)
		}
	}
	return total, most
}

// lazyRepo creates a repository for the laziness tests.
func lazyRepo(t testing.TB) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// writeChain writes n events as a first-parent chain on top of base (the
// ids of an existing run's events, the last one the first new event's
// parent) and a run holding base and them at ref; it returns the run's
// event ids. Objects go in one batch (loose ones with loose): a fixture, not a porcelain write.
func writeChain(t testing.TB, r *plumbing.Repo, ref string, base []objects.OID, n int, tag string, loose bool) []objects.OID {
	t.Helper()
	ctx := context.Background()
	ids := append([]objects.OID(nil), base...)
	objs := make([]*objects.Object, 0, n+1)
	for i := range n {
		parents := "[]"
		if len(ids) > 0 {
			parents = fmt.Sprintf("[%q]", ids[len(ids)-1].String())
		}
		js := fmt.Sprintf(`{"kind":"tool","tool":"shell","parent_ids":%s,"time_unix":%d,"cost":0.5,"attributes":{"argv":["sh","-c","step %s %d"],"exit_code":0}}`,
			parents, 1700000000+len(ids), tag, i)
		o := jsonObject(t, r.Algo(), objects.TypeEvent, js)
		objs = append(objs, o)
		ids = append(ids, o.ID)
	}
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = fmt.Sprintf("%q", id.String())
	}
	run := jsonObject(t, r.Algo(), objects.TypeRun, fmt.Sprintf(`{"created_at":1700000000,"events":[%s],"roots":[%s],"tips":[%s],"status":"running"}`,
		strings.Join(quoted, ","), quoted[0], quoted[len(quoted)-1]))
	objs = append(objs, run)
	put := objects.PutAll(ctx, r.Objects(), objs)
	if loose {
		put = r.Loose().PutBatch(ctx, objs)
	}
	if err := put; err != nil {
		t.Fatal(err)
	}
	if err := r.Refs().UpdateExpect(ctx, ref, run.ID, refs.ExpectAny, "test"); err != nil {
		t.Fatal(err)
	}
	return ids
}

func jsonObject(t testing.TB, a objects.Algo, typ objects.Type, js string) *objects.Object {
	t.Helper()
	v, err := objects.ParseJSON([]byte(js), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.NewJSONObject(a, typ, 1, v)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestLogLimitDoesNotReadOlderEvents: log -n 20 of a 1,000-event run whose
// oldest event is corrupt succeeds (it never reads that event; git log -n
// does not read old commits either), while a full log reports the damage.
func TestLogLimitDoesNotReadOlderEvents(t *testing.T) {
	r := lazyRepo(t)
	ids := writeChain(t, r, "heads/main", nil, 1000, "m", true)
	corruptLoose(t, r, ids[0])
	ctx := context.Background()
	res, err := Log(ctx, r, LogOptions{Rev: "heads/main", Limit: 20, Graph: true})
	if err != nil {
		t.Fatalf("log -n 20 read an event it does not show: %v", err)
	}
	if len(res.Entries) != 20 || res.Entries[0].Event != ids[999].String() || res.Runs[0].Events != 1000 {
		t.Fatalf("entries %d, newest %s, run events %d", len(res.Entries), res.Entries[0].Event, res.Runs[0].Events)
	}
	if _, err := Log(ctx, r, LogOptions{Rev: "heads/main"}); err == nil || !strings.Contains(err.Error(), ids[0].String()) {
		t.Fatalf("full log over a corrupt event: %v, want an error naming %s", err, ids[0])
	}
}

// TestDiffReadsEventsOfUnloadedRuns: Diff given two run payloads whose
// events are not loaded reads them through the getter, each at most once,
// and reports what a diff of the loaded runs reports.
func TestDiffReadsEventsOfUnloadedRuns(t *testing.T) {
	r := lazyRepo(t)
	ctx := context.Background()
	shared := writeChain(t, r, "heads/base", nil, 3000, "s", false)
	writeChain(t, r, "heads/main", shared, 10, "a", false)
	writeChain(t, r, "experiments/b", shared, 10, "b", false)
	head := func(ref string) *Run {
		id, err := r.Refs().Read(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.Objects().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		run, err := RunFromObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	want, err := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	c := newCounting(r.Objects())
	got, err := Diff(ctx, c, head("heads/main"), head("experiments/b"), DiffOptions{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	got.A.Revision, got.A.Ref, got.B.Revision, got.B.Ref = want.A.Revision, want.A.Ref, want.B.Revision, want.B.Ref
	if g, w := fmt.Sprintf("%+v", *got), fmt.Sprintf("%+v", *want); g != w || len(got.OnlyA) != 10 || len(got.Common) != 3000 {
		t.Fatalf("diff of unloaded runs differs from the diff of loaded ones (only a %d, common %d)", len(got.OnlyA), len(got.Common))
	}
	if ev, most := c.of(objects.TypeEvent); ev != 3020 || most != 1 {
		t.Errorf("diff read %d events (one up to %d times), want 3020 once each", ev, most)
	}
}

// corruptLoose overwrites the loose file of id with other bytes.
func corruptLoose(t testing.TB, r *plumbing.Repo, id objects.OID) {
	t.Helper()
	rel, err := objects.LoosePath(id)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r.Root(), filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-2] ^= 1
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
