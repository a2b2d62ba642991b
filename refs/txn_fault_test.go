package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// The fault-injection tests run one ref operation with a faultFS, once to
// count its file operations and then once per operation with that one
// failing, each time on a fresh repository. After every failure:
//
//   - a reader (on the real file system, which recovers what it must) sees
//     the refs wholly old or wholly new, never a mix, and every ref's
//     target in the object store; the reflog holds the old rows and at
//     most the operation's own row per ref;
//   - the error wraps the injected fault and names the file of the failed
//     step; a failure reported without "state unknown" left every ref old,
//     and a success left them new;
//   - the next writer succeeds with no manual step, after which no guard,
//     staging file, journal or shallow temporary remains.

// faultOp is an operation under test and what it should do.
type faultOp struct {
	// refs are the refs the operation involves; old and new their values
	// before and after it (a zero OID is an absent ref).
	refs     []string
	old, new []objects.OID
	// shallow marks an operation on the shallow file; oldShallow and
	// newShallow are its sets.
	shallow                bool
	oldShallow, newShallow []objects.OID
	run                    func(ctx context.Context, s *Store) error
}

// faultStore makes s run its file operations through fs in a fixed
// order: one fsync at a time, so the nth step is the same on every run,
// and the reflog rows ordered after the renames as order says, whatever
// the file system of the test's directory.
func faultStore(s *Store, fs *faultFS, order syncOrder) {
	s.fs = fs
	s.syncParallel = 1
	s.order = order
}

// syncOrders are the two orders of renames and reflog rows
// (fsorder.go): every fault case runs with each.
var syncOrders = []struct {
	name  string
	order syncOrder
}{{"sequential", orderSequential}, {"overlapped", orderOverlapped}}

func TestRefFaultSingleUpdate(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		a1, a2 := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "a2")
		mustCreate(t, s, "heads/a", a1)
		return faultOp{refs: []string{"heads/a"}, old: ids(a1), new: ids(a2),
			run: func(ctx context.Context, s *Store) error { return s.Update(ctx, "heads/a", a2, a1, "t") }}
	})
}

func TestRefFaultCreate(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		x := g.run(objects.BLAKE3, "x")
		return faultOp{refs: []string{"heads/new/deep"}, old: ids(objects.OID{}), new: ids(x),
			run: func(ctx context.Context, s *Store) error { return s.Create(ctx, "heads/new/deep", x, "t") }}
	})
}

func TestRefFaultDelete(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		b1 := g.run(objects.BLAKE3, "b1")
		mustCreate(t, s, "heads/x/b", b1)
		return faultOp{refs: []string{"heads/x/b"}, old: ids(b1), new: ids(objects.OID{}),
			run: func(ctx context.Context, s *Store) error { return s.Delete(ctx, "heads/x/b", ExpectValue(b1)) }}
	})
}

func TestRefFaultTransaction(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		a1, b1, d1, x := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "d1"), g.run(objects.BLAKE3, "x")
		mustCreate(t, s, "heads/a", a1)
		mustCreate(t, s, "heads/b", b1)
		mustCreate(t, s, "heads/d", d1)
		return faultOp{
			refs: []string{"heads/a", "heads/b", "tags/c", "heads/d"},
			old:  ids(a1, b1, objects.OID{}, d1),
			new:  ids(x, objects.OID{}, x, d1),
			run: func(ctx context.Context, s *Store) error {
				txn := s.NewTransaction("txn")
				txn.Update("heads/a", x, ExpectValue(a1))
				txn.Delete("heads/b", ExpectValue(b1))
				txn.Create("tags/c", x)
				txn.Verify("heads/d", ExpectValue(d1))
				return txn.Commit(ctx)
			}}
	})
}

// TestRefFaultTornReflog: the append that first cuts a crash's torn row
// off the reflog.
func TestRefFaultTornReflog(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		a1, a2 := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "a2")
		mustCreate(t, s, "heads/a", a1)
		f, err := os.OpenFile(s.logPath("heads/a"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"actor":"torn`)
		f.Close()
		return faultOp{refs: []string{"heads/a"}, old: ids(a1), new: ids(a2),
			run: func(ctx context.Context, s *Store) error { return s.Update(ctx, "heads/a", a2, a1, "t") }}
	})
}

func TestRefFaultShallow(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		s1, s2 := g.run(objects.BLAKE3, "s1"), g.run(objects.BLAKE3, "s2")
		if err := writeShallow(context.Background(), s, []objects.OID{s1}); err != nil {
			t.Fatal(err)
		}
		sorted := []objects.OID{s1, s2}
		slices.SortFunc(sorted, objects.OID.Compare)
		return faultOp{shallow: true, oldShallow: []objects.OID{s1}, newShallow: sorted,
			run: func(ctx context.Context, s *Store) error { return writeShallow(ctx, s, []objects.OID{s2, s1}) }}
	})
}

// TestRefFaultRecovery: the recovery of a transaction whose writer died
// after its commit point, with one of its two updates applied. Failing
// recovery must leave it for the next recovery: the refs end new.
func TestRefFaultRecovery(t *testing.T) {
	runFaultCase(t, func(t *testing.T, s *Store, g *memObjects) faultOp {
		a1, b1, x, y := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "b1"), g.run(objects.BLAKE3, "x"), g.run(objects.BLAKE3, "y")
		mustCreate(t, s, "heads/a", a1)
		mustCreate(t, s, "heads/b", b1)
		mustCreate(t, s, "heads/del", b1)
		crash(t, s, []*txOp{
			{kind: opUpdate, norm: "heads/a", newID: x},
			{kind: opUpdate, norm: "heads/b", newID: y},
			{kind: opDelete, norm: "heads/del"},
		}, 1, true)
		after := ids(x, y, objects.OID{})
		return faultOp{refs: []string{"heads/a", "heads/b", "heads/del"}, old: after, new: after,
			run: func(ctx context.Context, s *Store) error { return s.Recover(ctx) }}
	})
}

// ids returns its arguments as a slice.
func ids(v ...objects.OID) []objects.OID { return v }

// mustCreate creates a ref that must not exist.
func mustCreate(t *testing.T, s *Store, name string, id objects.OID) {
	t.Helper()
	if err := s.Create(context.Background(), name, id, "setup"); err != nil {
		t.Fatal(err)
	}
}

// runFaultCase counts the steps of the operation setup returns, then fails
// each in turn (see the comment at the top of this file).
func runFaultCase(t *testing.T, setup func(t *testing.T, s *Store, g *memObjects) faultOp) {
	for _, o := range syncOrders {
		t.Run(o.name, func(t *testing.T) { runFaultOrder(t, o.order, setup) })
	}
}

// runFaultOrder is runFaultCase with the reflog rows in one order.
func runFaultOrder(t *testing.T, order syncOrder, setup func(t *testing.T, s *Store, g *memObjects) faultOp) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	op := setup(t, s, g)
	count := &faultFS{root: s.root}
	faultStore(s, count, order)
	if err := op.run(ctx, s); err != nil {
		t.Fatalf("without faults: %v", err)
	}
	steps := count.steps
	if len(steps) < 3 {
		t.Fatalf("only %d steps counted: %v", len(steps), steps)
	}
	t.Logf("%d steps: %v", len(steps), steps)
	nth := map[string]int{}
	for i := range steps {
		// Step i is the nth operation of its kind: fail exactly that one.
		kind := steps[i].kind
		nth[kind]++
		n := nth[kind]
		t.Run(fmt.Sprintf("%02d-%s%d-%s", i+1, kind, n, strings.ReplaceAll(steps[i].path, "/", "_")), func(t *testing.T) {
			s, g := newTestStore(t, objects.BLAKE3)
			op := setup(t, s, g)
			logs := readLogs(t, s, op.refs)
			ffs := &faultFS{root: s.root, kind: kind, failAt: n}
			faultStore(s, ffs, order)
			err := op.run(ctx, s)
			if ffs.failed == nil || ffs.failedIndex != i {
				t.Fatalf("step %d (%s) was not reached again: the operation is not deterministic; failed %v at %d", i+1, steps[i], ffs.failed, ffs.failedIndex)
			}
			// A second store on the real file system observes, as the next
			// process would.
			r := Open(s.root, objects.BLAKE3, g, WithClock(tickClock()))
			isNew := checkOutcome(t, r, op, err, ffs.failed)
			checkLogs(t, r, op, logs, isNew)
			nextWriter(t, r, g, op)
		})
	}
}

// checkOutcome checks the state a reader sees and the error, and returns
// whether the operation took effect.
func checkOutcome(t *testing.T, r *Store, op faultOp, err error, failed *step) bool {
	t.Helper()
	ctx := context.Background()
	var isOld, isNew bool
	var got any
	if op.shallow {
		cur, rerr := r.ReadShallow()
		if rerr != nil {
			t.Fatalf("read shallow after the fault: %v", rerr)
		}
		isOld, isNew = slices.Equal(cur, op.oldShallow), slices.Equal(cur, op.newShallow)
		got = cur
	} else {
		cur := make([]objects.OID, len(op.refs))
		for i, name := range op.refs {
			id, rerr := r.Read(ctx, name)
			if rerr != nil && !errors.Is(rerr, ErrNotFound) {
				t.Fatalf("read %s after the fault: %v", name, rerr)
			}
			cur[i] = id
		}
		isOld, isNew = slices.Equal(cur, op.old), slices.Equal(cur, op.new)
		got = cur
	}
	if !isOld && !isNew {
		t.Fatalf("torn: refs %v hold %v, neither old %v nor new %v (error %v)", op.refs, got, op.old, op.new, err)
	}
	// No ref names a missing or wrongly typed object.
	if lerr := r.List(ctx, "", func(name string, id objects.OID) error {
		_, ferr := r.fetchTarget(ctx, name, id)
		return ferr
	}); lerr != nil {
		t.Fatalf("after the fault: %v", lerr)
	}
	if err == nil {
		if !isNew {
			t.Fatalf("reported success, but the refs are old: %v", got)
		}
		return true
	}
	msg := err.Error()
	abs := filepath.Join(r.root, filepath.FromSlash(failed.path))
	if !errors.Is(err, errInjected) || !strings.Contains(msg, abs) {
		t.Errorf("error %q does not wrap the fault of step %s or name its file", msg, failed)
	}
	var us *fsutil.UnknownStateError
	if errors.As(err, &us) {
		if !strings.Contains(msg, "state unknown") {
			t.Errorf("unknown-state error %q does not say so", msg)
		}
	} else if !isOld {
		t.Fatalf("reported a failure with a known outcome (%v), but the refs are new: %v", err, got)
	}
	t.Logf("step %s: %v", failed, err)
	return isNew
}

// readLogs returns the reflog of each ref.
func readLogs(t *testing.T, s *Store, names []string) [][]ReflogEntry {
	t.Helper()
	out := make([][]ReflogEntry, len(names))
	for i, name := range names {
		rr, err := s.ReadReflog(name)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = rr.Entries
	}
	return out
}

// checkLogs checks that each reflog holds its old rows and, only when the
// ref moved, at most one row recording that move.
func checkLogs(t *testing.T, r *Store, op faultOp, before [][]ReflogEntry, isNew bool) {
	t.Helper()
	for i, name := range op.refs {
		rr, err := r.ReadReflog(name)
		if err != nil {
			t.Fatalf("reflog %s: %v", name, err)
		}
		after := rr.Entries
		if len(after) < len(before[i]) || !slices.EqualFunc(after[:len(before[i])], before[i], func(a, b ReflogEntry) bool { return a == b }) {
			t.Fatalf("reflog %s lost or changed rows: %+v, was %+v", name, after, before[i])
		}
		extra := after[len(before[i]):]
		switch {
		case len(extra) == 0:
		case len(extra) == 1 && isNew && extra[0].New == op.new[i] && extra[0].Ref == name:
		default:
			t.Fatalf("reflog %s gained %+v (refs new: %v)", name, extra, isNew)
		}
	}
}

// nextWriter moves every ref of op (or the shallow set) once more on the
// real file system, from the values a reader sees now, and checks that it
// succeeds and leaves nothing behind.
func nextWriter(t *testing.T, r *Store, g *memObjects, op faultOp) {
	t.Helper()
	ctx := context.Background()
	next := g.run(objects.BLAKE3, "next")
	if op.shallow {
		if err := r.UpdateShallow(ctx, func(cur []objects.OID) ([]objects.OID, error) { return append(cur, next), nil }); err != nil {
			t.Fatalf("next shallow writer: %v", err)
		}
	} else {
		txn := r.NewTransaction("next")
		for _, name := range op.refs {
			cur, err := r.Read(ctx, name)
			if err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
			txn.Update(name, next, ExpectValue(cur))
		}
		if err := txn.Commit(ctx); err != nil {
			t.Fatalf("next writer: %v", err)
		}
		for _, name := range op.refs {
			if mustRead(t, r, name) != next {
				t.Fatalf("next writer did not move %s", name)
			}
		}
	}
	left, err := r.StaleGuards(ctx)
	if err != nil || len(left) != 0 {
		t.Fatalf("left behind after the next writer: %+v, %v", left, err)
	}
	noLocks(t, r)
}

// TestRefFaultReflogDirectoryDurable: whichever step of a ref's first
// reflog append fails, by the end of the next append the log's directory
// has been fsynced after the log was created. Before, the directory was
// synced only by the append that created the file, after its row: a
// failed fsync of that row left a log whose directory entry no later
// append made durable, so a crash could lose the whole reflog.
func TestRefFaultReflogDirectoryDurable(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	x := g.run(objects.BLAKE3, "x")
	count := &faultFS{root: s.root}
	s.fs = count
	if err := s.Create(ctx, "heads/new/deep", x, "t"); err != nil {
		t.Fatal(err)
	}
	const log, dir = "logs/heads/new/deep", "logs/heads/new"
	first := slices.Index(count.steps, step{stepCreate, log})
	if first < 0 {
		t.Fatalf("no reflog created: %v", count.steps)
	}
	for i := first; i < len(count.steps); i++ {
		t.Run(fmt.Sprintf("%02d-%s", i+1, count.steps[i].kind), func(t *testing.T) {
			s, g := newTestStore(t, objects.BLAKE3)
			x, y := g.run(objects.BLAKE3, "x"), g.run(objects.BLAKE3, "y")
			ffs := &faultFS{root: s.root, failAt: i + 1}
			s.fs = ffs
			s.Create(ctx, "heads/new/deep", x, "t")
			cur, err := s.Read(ctx, "heads/new/deep")
			if err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
			if err := s.UpdateExpect(ctx, "heads/new/deep", y, ExpectValue(cur), "t"); err != nil {
				t.Fatalf("next writer: %v", err)
			}
			created := -1
			for j, st := range ffs.steps {
				if st == (step{stepCreate, log}) && j != ffs.failedIndex {
					created = j
					break
				}
			}
			synced := false
			for j := created + 1; j < len(ffs.steps); j++ {
				synced = synced || ffs.steps[j] == step{stepSyncDir, dir} && j != ffs.failedIndex
			}
			if created < 0 || !synced {
				t.Fatalf("failing %s: the reflog's directory was not synced after its creation: %v", count.steps[i], ffs.steps)
			}
		})
	}
}

// TestRefFaultConcurrentFsync fails each fsync of a transaction whose
// staging files and reflogs are fsynced concurrently (the store's
// default), where the order of the fsyncs varies from run to run: whichever
// file's fsync fails, the refs end wholly old or wholly new and the error
// names that file.
func TestRefFaultConcurrentFsync(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, s *Store, g *memObjects) faultOp {
		a1, x := g.run(objects.BLAKE3, "a1"), g.run(objects.BLAKE3, "x")
		mustCreate(t, s, "heads/a", a1)
		return faultOp{
			refs: []string{"heads/a", "tags/c", "tags/d", "tags/e"},
			old:  ids(a1, objects.OID{}, objects.OID{}, objects.OID{}),
			new:  ids(x, x, x, x),
			run: func(ctx context.Context, s *Store) error {
				txn := s.NewTransaction("txn")
				txn.Update("heads/a", x, ExpectValue(a1))
				txn.Create("tags/c", x)
				txn.Create("tags/d", x)
				txn.Create("tags/e", x)
				return txn.Commit(ctx)
			}}
	}
	s, g := newTestStore(t, objects.BLAKE3)
	op := setup(t, s, g)
	count := &faultFS{root: s.root}
	s.fs = count
	if err := op.run(ctx, s); err != nil {
		t.Fatal(err)
	}
	n := count.count(stepFsync)
	for i := 1; i <= n; i++ {
		t.Run(fmt.Sprintf("fsync%d", i), func(t *testing.T) {
			s, g := newTestStore(t, objects.BLAKE3)
			op := setup(t, s, g)
			logs := readLogs(t, s, op.refs)
			ffs := &faultFS{root: s.root, kind: stepFsync, failAt: i}
			s.fs = ffs
			err := op.run(ctx, s)
			if ffs.failed == nil {
				t.Fatalf("fsync %d was not reached", i)
			}
			r := Open(s.root, objects.BLAKE3, g, WithClock(tickClock()))
			isNew := checkOutcome(t, r, op, err, ffs.failed)
			checkLogs(t, r, op, logs, isNew)
			nextWriter(t, r, g, op)
		})
	}
}
