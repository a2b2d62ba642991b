package pack

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestReadIndex: the index bytes of a written pack give its oids; a
// flipped byte, a truncation, another pack's name or another hash profile
// are refused as corrupt.
func TestReadIndex(t *testing.T) {
	dir := t.TempDir()
	objs := spTestObjects(t, objects.BLAKE3, 50)
	w, err := NewWriter(dir, objects.BLAKE3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := w.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	name, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, name+".idx"))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := ReadIndex(name, data, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]objects.OID, len(objs))
	for i, o := range objs {
		want[i] = o.ID
	}
	slices.SortFunc(want, objects.OID.Compare)
	slices.SortFunc(ids, objects.OID.Compare)
	if !slices.Equal(ids, want) {
		t.Fatalf("ReadIndex listed %d oids, want the %d written", len(ids), len(want))
	}
	flipped := slices.Clone(data)
	flipped[len(flipped)/2] ^= 1
	other := "pack-" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for what, tc := range map[string]struct {
		name string
		data []byte
		algo objects.Algo
	}{
		"flipped":   {name, flipped, objects.BLAKE3},
		"truncated": {name, data[:len(data)-1], objects.BLAKE3},
		"renamed":   {other, data, objects.BLAKE3},
		"sha256":    {name, data, objects.SHA256},
	} {
		if _, err := ReadIndex(tc.name, tc.data, tc.algo); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", what, err)
		}
	}
}
