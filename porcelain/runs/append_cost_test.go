package runs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// countingStore counts the calls that cost I/O: reads of each event, single Puts
// (one fsync round each) and PutBatch calls (one fsync round per batch).
type countingStore struct {
	objects.Store
	mu            sync.Mutex
	eventReads    map[objects.OID]int
	puts, batches int
}

func (s *countingStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if id.Type == objects.TypeEvent {
		s.mu.Lock()
		s.eventReads[id]++
		s.mu.Unlock()
	}
	return s.Store.Get(ctx, id)
}

func (s *countingStore) Put(ctx context.Context, o *objects.Object) error {
	s.mu.Lock()
	s.puts++
	s.mu.Unlock()
	return s.Store.Put(ctx, o)
}

func (s *countingStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	s.mu.Lock()
	s.batches++
	s.mu.Unlock()
	return objects.PutAll(ctx, s.Store, objs)
}

func (s *countingStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eventReads, s.puts, s.batches = map[objects.OID]int{}, 0, 0
}

// oldReads is how many times the events named by ids were read.
func (s *countingStore) oldReads(ids []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := 0
	for _, id := range ids {
		if oid, err := objects.ParseOID(id); err == nil {
			sum += s.eventReads[oid]
		}
	}
	return sum
}

// openCounting reopens r's repository with every store call counted.
func openCounting(t *testing.T, r *plumbing.Repo) (*plumbing.Repo, *countingStore) {
	t.Helper()
	var cs *countingStore
	c, err := plumbing.OpenWith(r.Root(), plumbing.OpenOptions{WrapObjects: func(s objects.Store) objects.Store {
		cs = &countingStore{Store: s, eventReads: map[objects.OID]int{}}
		return cs
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, cs
}

// importN imports n note events onto heads/main.
func importN(t testing.TB, r *plumbing.Repo, n int) *runs.ImportResult {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"kind":"note","text":"event %d"}`+"\n", i)
	}
	res, err := runs.Import(context.Background(), r, runs.ImportOptions{Input: strings.NewReader(b.String())})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRecordOnLongRunReadsO1Events: tine record onto a 5,000-event run reads
// the run object and its tip, not the run's events (the pre-check and the
// append's validation both used to read all of them).
func TestRecordOnLongRunReadsO1Events(t *testing.T) {
	const n = 5000
	r := newRepo(t)
	base := importN(t, r, n)
	c, cs := openCounting(t, r)
	ctx := context.Background()
	cs.reset()
	res, err := runs.Record(ctx, c, runs.RecordOptions{Argv: []string{"true"}, Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	// Of the run's events only the tip is read: by the pre-check and again
	// by the append attempt. (The new event is read too: to check the
	// run-graph delta, and by the catalog's refresh.)
	tip := mustOID(t, base.Event)
	if old := cs.oldReads(base.Events); old != cs.eventReads[tip] || old > 2 {
		t.Fatalf("record onto a %d-event run read %d of its events (%d times its tip), want its tip at most twice", n, old, cs.eventReads[tip])
	}
	cs.reset()
	one := importN(t, c, 1)
	if old := cs.oldReads(append(base.Events, res.Event)); old > 1 {
		t.Fatalf("import of one event onto a %d-event run read its events %d times, want at most once (the tip)", n+1, old)
	}
	run, err := runs.LoadRun(ctx, c.Objects(), mustOID(t, one.Run))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Events) != n+2 || run.Events[n].ID != mustOID(t, res.Event) {
		t.Fatalf("run after record and import holds %d events", len(run.Events))
	}
	if len(run.Tips) != 1 || run.Tips[0] != run.Events[n+1].ID || len(run.Roots) != 1 {
		t.Fatalf("roots %v tips %v, want the first and the last event", run.Roots, run.Tips)
	}
}

// TestImportWritesInBatches: importing 1,000 events writes them in
// O(batches) rounds of fsyncs through the store's PutBatch, and the run
// once, last; it used to Put (and fsync) every object on its own.
func TestImportWritesInBatches(t *testing.T) {
	r := newRepo(t)
	c, cs := openCounting(t, r)
	const n = 1000
	res := importN(t, c, n)
	if len(res.Events) != n {
		t.Fatalf("imported %d events, want %d", len(res.Events), n)
	}
	if cs.batches > 2 || cs.puts > 1 {
		t.Fatalf("import of %d events: %d batches and %d single puts, want at most 2 batches and 1 put (the run)", n, cs.batches, cs.puts)
	}
	run, err := runs.LoadRun(context.Background(), c.Objects(), mustOID(t, res.Run))
	if err != nil || len(run.Events) != n {
		t.Fatalf("imported run: %v", err)
	}
}

// BenchmarkRecordOnLongRun times tine record (of true) onto a run of
// 1,000, 10,000 and 30,000 events, in-process: what the append costs
// beyond the process start (without the code state capture, whose git
// calls depend on the work tree the benchmark happens to run in). An
// append splices the next run object from the head's bytes and checks it
// by bytes, so the cost should barely grow with the run.
func BenchmarkRecordOnLongRun(b *testing.B) {
	for _, n := range []int{1000, 10000, 30000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			r := newRepo(b)
			for left := n; left > 0; left -= runs.MaxImportEvents {
				importN(b, r, min(left, runs.MaxImportEvents))
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if _, err := runs.Record(ctx, r, runs.RecordOptions{Argv: []string{"true"}, Env: []string{}, NoCapture: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImport10k times tine import of 10,000 events into a new run.
func BenchmarkImport10k(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		r := newRepo(b)
		b.StartTimer()
		importN(b, r, 10000)
	}
}

// failingBatchStore stores the first half of every batch, then fails it:
// a batch write that dies part way.
type failingBatchStore struct{ objects.Store }

var errBatch = errors.New("injected batch failure")

func (s failingBatchStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	if err := objects.PutAll(ctx, s.Store, objs[:len(objs)/2]); err != nil {
		return err
	}
	return errBatch
}

// TestImportFailedBatchMovesNothing: an import whose batch write fails part
// way is all or nothing: the error says so, the ref keeps its run, and the
// objects that did land are complete, unreachable garbage (fsck clean).
func TestImportFailedBatchMovesNothing(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	before := importN(t, r, 3)
	f, err := plumbing.OpenWith(r.Root(), plumbing.OpenOptions{WrapObjects: func(s objects.Store) objects.Store {
		return failingBatchStore{s}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"kind":"note","text":"more %d"}`+"\n", i)
	}
	if _, err := runs.Import(ctx, f, runs.ImportOptions{Input: strings.NewReader(b.String())}); !errors.Is(err, errBatch) {
		t.Fatalf("import over a failing batch: %v", err)
	}
	id, err := r.Refs().Read(ctx, runs.DefaultRef)
	if err != nil || id.String() != before.Run {
		t.Fatalf("heads/main is %s (%v), want %s", id, err, before.Run)
	}
	res, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
	if err != nil || len(res.Problems) > 0 {
		t.Fatalf("fsck: %v %+v", err, res.Problems)
	}
	if res.Objects <= 4+1 {
		t.Fatalf("fsck counts %d objects: the failed batch stored none, the test proves nothing", res.Objects)
	}
}
