package refs

import (
	"context"
	"errors"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestShallowBoundsByProfile: a sha256 repository's shallow file keeps the
// SPEC's 10,000 entries (OpenTine reads it); a blake3 one holds more, up to
// MaxShallowEntriesBLAKE3, and reads back what it wrote.
func TestShallowBoundsByProfile(t *testing.T) {
	ctx := context.Background()
	for _, a := range []objects.Algo{objects.SHA256, objects.BLAKE3} {
		s, _ := newTestStore(t, a)
		ids := make([]objects.OID, MaxShallowEntries+1)
		for i := range ids {
			ids[i] = a.Derive(objects.TypeEvent, 1, []byte{byte(i), byte(i >> 8), byte(i >> 16)})
		}
		err := s.UpdateShallow(ctx, func([]objects.OID) ([]objects.OID, error) { return ids, nil })
		var fe *objects.FormatError
		if a == objects.SHA256 {
			if !errors.As(err, &fe) || fe.Reason != objects.ReasonShallowTooMany {
				t.Errorf("sha256: %d shallow ids = %v, want shallow.too-many", len(ids), err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("blake3: %d shallow ids: %v", len(ids), err)
		}
		back, err := s.ReadShallow()
		if err != nil || len(back) != len(ids) {
			t.Fatalf("blake3: read back %d ids, %v", len(back), err)
		}
		if _, err := ParseShallow(EncodeShallow(ids)); err == nil {
			t.Errorf("ParseShallow (the SPEC's bounds) accepted %d ids", len(ids))
		}
	}
}
