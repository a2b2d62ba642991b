package plumbing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/objectstest"
)

// TestFailedObjectWriteLeavesNoDanglingRef appends a run the way a script
// does with plumbing (hash-object -w of the event, then of the run, then
// update-ref with the old value) while the object store fails the run's
// write, before or after the write took effect. Whatever the failure, the
// error names the run object, heads/main never points at a missing object
// (update-ref refuses the unwritten run and the ref keeps the old run),
// fsck finds no problem, and the append retried without the fault succeeds.
func TestFailedObjectWriteLeavesNoDanglingRef(t *testing.T) {
	for _, step := range []string{objectstest.StepPut, objectstest.StepPutCommitted} {
		t.Run(strings.ReplaceAll(step, " ", "-"), func(t *testing.T) {
			forEachAlgo(t, func(t *testing.T, r *Repo) {
				testFailedAppend(t, r, step)
			})
		})
	}
}

func testFailedAppend(t *testing.T, r *Repo, step string) {
	ctx := context.Background()
	a := r.Algo()
	ev1 := jsonObject(t, a, objects.TypeEvent, `{"kind":"model","parent_ids":[]}`)
	run1 := jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":["%s"],"roots":["%s"],"tips":["%s"]}`, ev1.ID, ev1.ID, ev1.ID))
	hashWrite(t, r, ev1)
	hashWrite(t, r, run1)
	if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run1.ID.String(), Create: true}); err != nil {
		t.Fatal(err)
	}

	f := &objectstest.Faults{}
	r.objs = objectstest.NewFaultStore(r.objs, f)
	ev2 := jsonObject(t, a, objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","parent_ids":["%s"]}`, ev1.ID))
	run2 := jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":["%s","%s"],"roots":["%s"],"tips":["%s"]}`, ev1.ID, ev2.ID, ev1.ID, ev2.ID))
	hashWrite(t, r, ev2)
	f.Arm(step, 1)
	_, err := HashObject(ctx, r, HashObjectOptions{Type: objects.TypeRun, Write: true, Stdin: bytes.NewReader(run2.Body)})
	if f.Fired() != 1 || !errors.Is(err, objectstest.ErrInjected) {
		t.Fatalf("hash-object -w of the run with a failing %s: %v", step, err)
	}
	if !strings.Contains(err.Error(), run2.ID.String()) {
		t.Fatalf("error %q does not name the run %s", err, run2.ID)
	}
	// The script goes on to move the ref, as a careless one would.
	_, uerr := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run2.ID.String(), Old: run1.ID.String()})
	head, err := r.Resolve(ctx, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case head == run1.ID:
		if step == objectstest.StepPutCommitted {
			t.Fatalf("update-ref to a run written in full was refused: %v", uerr)
		}
	case head == run2.ID:
		if uerr != nil {
			t.Fatalf("update-ref failed (%v) but moved the ref", uerr)
		}
	default:
		t.Fatalf("heads/main = %s, want %s or %s", head, run1.ID, run2.ID)
	}
	if _, err := r.Objects().Get(ctx, head); err != nil {
		t.Fatalf("heads/main points at %s, which cannot be read: %v", head, err)
	}
	res, err := Fsck(ctx, r, FsckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Fatalf("fsck after a failed %s: %+v", step, res.Problems)
	}

	// Retried without the fault, the append completes.
	f.Disarm()
	hashWrite(t, r, run2)
	if head != run2.ID {
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run2.ID.String(), Old: run1.ID.String()}); err != nil {
			t.Fatalf("retried update-ref: %v", err)
		}
	}
	if head, err := r.Resolve(ctx, "heads/main"); err != nil || head != run2.ID {
		t.Fatalf("heads/main after the retry = %s, %v; want %s", head, err, run2.ID)
	}
}

// hashWrite stores o through hash-object -w, which validates it.
func hashWrite(t *testing.T, r *Repo, o *objects.Object) {
	t.Helper()
	res, err := HashObject(context.Background(), r, HashObjectOptions{Type: o.Type, Write: true, Stdin: bytes.NewReader(o.Body)})
	if err != nil {
		t.Fatalf("hash-object -w %s: %v", o.ID, err)
	}
	if res.Objects[0].OID != o.ID.String() {
		t.Fatalf("hash-object gave %s, want %s", res.Objects[0].OID, o.ID)
	}
}
