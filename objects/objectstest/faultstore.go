package objectstest

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// The steps of a FaultStore: whole store calls rather than file
// operations, for tests of the layers above a store.
const (
	// StepPut fails a Put before anything is written: the object stays
	// absent, as after a failed create, write, fsync or rename.
	StepPut = "put"
	// StepPutCommitted fails a Put after the wrapped store wrote the object:
	// the object is complete and visible but the caller gets an error, as
	// after a failed directory fsync.
	StepPutCommitted = "put committed"
	// StepGet fails a Get.
	StepGet = "get"
)

// FaultStore wraps a Store and fails its Put and Get calls at the steps
// its Faults choose (kopia tests its repository over a storage that fails
// on demand in the same way). A batch is written one object at a time, so
// a failure in the middle of it leaves the objects before it stored.
type FaultStore struct {
	objects.Store
	faults *Faults
}

var _ interface {
	objects.Store
	objects.BatchPutter
} = (*FaultStore)(nil)

// NewFaultStore wraps s; f chooses the failing calls.
func NewFaultStore(s objects.Store, f *Faults) *FaultStore {
	return &FaultStore{Store: s, faults: f}
}

// Put stores o unless a fault is armed for this call.
func (s *FaultStore) Put(ctx context.Context, o *objects.Object) error {
	if err := s.faults.Hook(StepPut, o.ID.String()); err != nil {
		return fmt.Errorf("object %s: %s: %w", o.ID, StepPut, err)
	}
	if err := s.Store.Put(ctx, o); err != nil {
		return err
	}
	if err := s.faults.Hook(StepPutCommitted, o.ID.String()); err != nil {
		return fmt.Errorf("object %s: %s, state unknown: %w", o.ID, StepPutCommitted, err)
	}
	return nil
}

// PutBatch stores objs in order, one Put each, stopping at the first error.
func (s *FaultStore) PutBatch(ctx context.Context, objs []*objects.Object) error {
	for _, o := range objs {
		if err := s.Put(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

// Get reads id unless a fault is armed for this call.
func (s *FaultStore) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if err := s.faults.Hook(StepGet, id.String()); err != nil {
		return nil, fmt.Errorf("object %s: %s: %w", id, StepGet, err)
	}
	return s.Store.Get(ctx, id)
}
