package objects

import (
	"context"
	"slices"
	"sync"
)

// mapStore is the smallest Store for this package's own tests of the
// TINEPACK3 installer. The memory store (objects/memory) imports this
// package, so the package's internal tests cannot use it.
type mapStore struct {
	algo Algo
	mu   sync.Mutex
	objs map[OID][]byte
}

func newMapStore(a Algo) *mapStore { return &mapStore{algo: a, objs: map[OID][]byte{}} }

func (m *mapStore) Algo() Algo { return m.algo }

// Len returns the number of objects held.
func (m *mapStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.objs)
}

func (m *mapStore) Get(_ context.Context, id OID) (*Object, error) {
	m.mu.Lock()
	stored, ok := m.objs[id]
	m.mu.Unlock()
	if !ok {
		return nil, NotFound(id)
	}
	return DecodeEnvelopeAs(id, slices.Clone(stored))
}

func (m *mapStore) Has(_ context.Context, id OID) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objs[id]
	return ok, nil
}

func (m *mapStore) Put(_ context.Context, o *Object) error {
	if err := CheckPut(m.algo, o); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objs[o.ID] = slices.Clone(o.Stored())
	return nil
}

func (m *mapStore) List(_ context.Context, fn func(OID) error) error {
	m.mu.Lock()
	ids := make([]OID, 0, len(m.objs))
	for id := range m.objs {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	slices.SortFunc(ids, OID.Compare)
	for _, id := range ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}
