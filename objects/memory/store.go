package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/tinehq/tine/objects"
)

// Store is a Store held in memory, for tests and for staging objects
// before they are written out. It is safe for concurrent use. It keeps its
// own copy of every object's stored bytes and decodes a fresh Object on each
// Get, so no caller can change what another reads.
type Store struct {
	algo objects.Algo
	mu   sync.RWMutex
	objs map[objects.OID][]byte
}

var _ interface {
	objects.Store
	objects.BatchPutter
	objects.TypeLister
} = (*Store)(nil)

// New returns an empty Store of hash profile a.
func New(a objects.Algo) *Store {
	return &Store{algo: a, objs: make(map[objects.OID][]byte)}
}

// Algo returns the store's hash profile.
func (m *Store) Algo() objects.Algo { return m.algo }

// Len returns the number of objects held.
func (m *Store) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.objs)
}

// Get returns the object named id, re-derived from its stored bytes.
func (m *Store) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	stored, ok := m.objs[id]
	m.mu.RUnlock()
	if !ok {
		return nil, objects.NotFound(id)
	}
	// The stored slice is never written after insertion, so decoding a copy
	// outside the lock is safe; the copy keeps the result unaliased.
	o, err := objects.DecodeEnvelopeAs(id, slices.Clone(stored))
	if err != nil {
		return nil, err // DecodeEnvelopeAs names the object
	}
	return o, nil
}

// Has reports whether the store holds id.
func (m *Store) Has(ctx context.Context, id objects.OID) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	m.mu.RLock()
	_, ok := m.objs[id]
	m.mu.RUnlock()
	return ok, nil
}

// Put stores a copy of o. An object already present is success; a present
// copy that differs (only possible after corruption) is replaced, since the
// name fixes the content.
func (m *Store) Put(ctx context.Context, o *objects.Object) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := objects.CheckPut(m.algo, o); err != nil {
		return err
	}
	stored := slices.Clone(o.Stored())
	m.mu.Lock()
	m.objs[o.ID] = stored
	m.mu.Unlock()
	return nil
}

// PutBatch stores every object of objs.
func (m *Store) PutBatch(ctx context.Context, objs []*objects.Object) error {
	for _, o := range objs {
		if err := m.Put(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

// List calls fn for every id in enumeration order. fn runs without the
// store's lock held, so it may call back into the store.
func (m *Store) List(ctx context.Context, fn func(objects.OID) error) error {
	return m.ListTypes(ctx, objects.Types, fn)
}

// ListTypes is List restricted to the given types (objects.TypeLister):
// only their ids are collected and sorted.
func (m *Store) ListTypes(ctx context.Context, types []objects.Type, fn func(objects.OID) error) error {
	want := objects.TypesInOrder(types)
	m.mu.RLock()
	var ids []objects.OID
	if len(want) == len(objects.Types) {
		ids = make([]objects.OID, 0, len(m.objs))
	}
	for id := range m.objs {
		if slices.Contains(want, id.Type) {
			ids = append(ids, id)
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(ids, objects.OID.Compare)
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}
