package objectstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// RunFaults is the fault-injection suite for a store whose file operations
// can fail on demand: newStore returns a new, empty store of profile a that consults
// f.Hook before each of the steps in WriteSteps and ReadSteps. For every
// write step, a Put and a batch fail at that step and then:
//
//   - the error wraps ErrInjected and names the object and the step;
//   - each object is either complete or absent to Get, Has and List alike,
//     never half-written, corrupt or listed without being readable;
//   - the same write retried without the fault succeeds.
//
// A store that streams blobs in (BlobStreamer) gets the same write cases
// for PutBlobFrom. For every read step a Get fails with an error naming the object (and the
// step, or for StepVerify a *objects.FormatError: the damaged bytes were
// refused), and the next Get returns the object intact.
func RunFaults(t *testing.T, newStore func(t *testing.T, a objects.Algo, f *Faults) objects.Store) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(a), func(t *testing.T) {
			for _, step := range WriteSteps {
				t.Run("put/"+step, func(t *testing.T) {
					f := &Faults{}
					testWriteFault(t, newStore(t, a, f), f, step, a, 1, 1)
				})
				t.Run("batch/"+step, func(t *testing.T) {
					f := &Faults{}
					testWriteFault(t, newStore(t, a, f), f, step, a, 4, 2)
				})
				t.Run("stream/"+step, func(t *testing.T) {
					f := &Faults{}
					s := newStore(t, a, f)
					if _, ok := s.(BlobStreamer); !ok {
						t.Skip("the store does not stream blobs")
					}
					testStreamFault(t, s, f, step, a)
				})
			}
			for _, step := range ReadSteps {
				t.Run("get/"+step, func(t *testing.T) {
					f := &Faults{}
					testReadFault(t, newStore(t, a, f), f, step, a)
				})
			}
		})
	}
}

// testWriteFault stores n objects with the nth call of step failing.
func testWriteFault(t *testing.T, s objects.Store, f *Faults, step string, a objects.Algo, n, nth int) {
	ctx := t.Context()
	objs := Blobs(a, "fault "+step, n)
	if n > 1 {
		objs[n-1] = Samples(t, a)[1] // a json object too
	}
	f.Arm(step, nth)
	err := objects.PutAll(ctx, s, objs)
	if f.Fired() != 1 {
		t.Fatalf("the %s fault never fired (err %v): the store does not consult the hook there", step, err)
	}
	if err == nil {
		t.Fatalf("a failed %s was reported as success", step)
	}
	if !errors.Is(err, ErrInjected) {
		t.Fatalf("error %q does not wrap the injected fault", err)
	}
	if !strings.Contains(err.Error(), ": "+step+":") {
		t.Fatalf("error %q does not name the failed step %q", err, step)
	}
	if !namesOneOf(err, objs) {
		t.Fatalf("error %q names none of the objects written", err)
	}
	present := checkAllOrNothing(t, s, objs)
	if step == StepSyncDir && present != len(objs) {
		// The rename is the commit point: every object was in place.
		t.Fatalf("%d of %d objects visible after a failed directory sync, want all", present, len(objs))
	}
	if step != StepSyncDir && n == 1 && present != 0 {
		t.Fatalf("an object whose %s failed is visible", step)
	}
	f.Disarm()
	if err := objects.PutAll(ctx, s, objs); err != nil {
		t.Fatalf("retried write after a failed %s: %v", step, err)
	}
	if got := checkAllOrNothing(t, s, objs); got != len(objs) {
		t.Fatalf("%d of %d objects readable after the retry", got, len(objs))
	}
}

// checkAllOrNothing requires every object to be complete or absent, with
// Get, Has and List agreeing, and returns how many are present.
func checkAllOrNothing(t *testing.T, s objects.Store, objs []*objects.Object) int {
	t.Helper()
	ctx := t.Context()
	listed := map[objects.OID]bool{}
	if err := s.List(ctx, func(id objects.OID) error { listed[id] = true; return nil }); err != nil {
		t.Fatalf("List: %v", err)
	}
	present := 0
	for _, o := range objs {
		got, err := s.Get(ctx, o.ID)
		has, herr := s.Has(ctx, o.ID)
		if herr != nil {
			t.Fatalf("Has(%s): %v", o.ID, herr)
		}
		switch {
		case err == nil:
			if !bytes.Equal(got.Stored(), o.Stored()) {
				t.Fatalf("Get(%s) returned other bytes", o.ID)
			}
			if !has || !listed[o.ID] {
				t.Fatalf("%s readable but Has=%v, listed=%v", o.ID, has, listed[o.ID])
			}
			present++
		case errors.Is(err, objects.ErrNotFound):
			if has || listed[o.ID] {
				t.Fatalf("%s not found but Has=%v, listed=%v", o.ID, has, listed[o.ID])
			}
		default:
			t.Fatalf("Get(%s) after a failed write: %v; want the object or not-found", o.ID, err)
		}
		delete(listed, o.ID)
	}
	for id := range listed {
		t.Fatalf("List shows %s, which was never written", id)
	}
	return present
}

// testReadFault fails one Get at step and checks the next one.
func testReadFault(t *testing.T, s objects.Store, f *Faults, step string, a objects.Algo) {
	ctx := t.Context()
	objs := Samples(t, a)[:2]
	put(t, s, objs...)
	for _, o := range objs {
		f.Arm(step, 1)
		got, err := s.Get(ctx, o.ID)
		if f.Fired() != 1 {
			t.Fatalf("the %s fault never fired (err %v)", step, err)
		}
		if err == nil || got != nil {
			t.Fatalf("Get(%s) with a failed %s = %v, %v; want an error", o.ID, step, got, err)
		}
		if !strings.Contains(err.Error(), o.ID.String()) {
			t.Fatalf("error %q does not name %s", err, o.ID)
		}
		if step == StepVerify {
			if !objects.HasReason(err, objects.ReasonEnvelopeOidMismatch) && !isFormat(err) {
				t.Fatalf("Get(%s) of damaged bytes: %v; want a *FormatError", o.ID, err)
			}
		} else if !errors.Is(err, ErrInjected) || !strings.Contains(err.Error(), ": "+step+":") {
			t.Fatalf("error %q does not wrap the fault and name the step %q", err, step)
		}
		f.Disarm()
		mustGet(t, s, o)
	}
}

// namesOneOf reports whether err's text names one of objs.
func namesOneOf(err error, objs []*objects.Object) bool {
	for _, o := range objs {
		if strings.Contains(err.Error(), fmt.Sprintf("object %s", o.ID)) {
			return true
		}
	}
	return false
}

// isFormat reports whether err is a format error.
func isFormat(err error) bool {
	_, ok := objects.ReasonOf(err)
	return ok
}

// BlobStreamer is implemented by stores that write a blob from a reader in
// constant memory (the loose store).
type BlobStreamer interface {
	PutBlobFrom(ctx context.Context, r io.Reader) (objects.OID, error)
}

// testStreamFault streams one blob in with the first call of step failing.
// Before the last byte is hashed the blob has no name yet, so the errors of
// the first steps say "put blob"; later ones name the object.
func testStreamFault(t *testing.T, s objects.Store, f *Faults, step string, a objects.Algo) {
	ctx := t.Context()
	content := bytes.Repeat([]byte("streamed under a "+step+" fault\n"), 64)
	blob := objects.NewBlob(a, content)
	f.Arm(step, 1)
	_, err := s.(BlobStreamer).PutBlobFrom(ctx, bytes.NewReader(content))
	if f.Fired() != 1 {
		t.Fatalf("the %s fault never fired (err %v)", step, err)
	}
	if err == nil || !errors.Is(err, ErrInjected) || !strings.Contains(err.Error(), ": "+step+":") {
		t.Fatalf("PutBlobFrom with a failed %s: %v; want an error wrapping the fault and naming the step", step, err)
	}
	named := "object " + blob.ID.String()
	if step == StepCreateTemp || step == StepWrite {
		named = "put blob"
	}
	if !strings.Contains(err.Error(), named) {
		t.Fatalf("error %q does not say %q", err, named)
	}
	want := 0
	if step == StepSyncDir {
		want = 1
	}
	if got := checkAllOrNothing(t, s, []*objects.Object{blob}); got != want {
		t.Fatalf("%d copies of the blob visible after a failed %s, want %d", got, step, want)
	}
	f.Disarm()
	id, err := s.(BlobStreamer).PutBlobFrom(ctx, bytes.NewReader(content))
	if err != nil || id != blob.ID {
		t.Fatalf("retried PutBlobFrom = %s, %v; want %s", id, err, blob.ID)
	}
	if got := checkAllOrNothing(t, s, []*objects.Object{blob}); got != 1 {
		t.Fatal("the retried blob is not readable")
	}
}
