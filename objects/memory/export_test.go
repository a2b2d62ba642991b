package memory

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Corrupt flips the bits of the last stored byte of id, so the shared suite
// (objectstest.Corrupter) can check that reads detect corruption. It exists
// only in test builds.
func (m *Store) Corrupt(id objects.OID) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	stored, ok := m.objs[id]
	if !ok || len(stored) == 0 {
		return fmt.Errorf("object %s: %w", id, objects.ErrNotFound)
	}
	damaged := append([]byte(nil), stored...)
	damaged[len(damaged)-1] ^= 0xff
	m.objs[id] = damaged
	return nil
}
