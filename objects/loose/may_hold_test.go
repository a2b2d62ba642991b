package loose_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestMayHoldAgreesWithHas: stored objects are reported, absent ones are
// not (in a fan-out directory that exists and in one that does not), an
// object whose file is unsafe counts as held (so a bulk write sends it to
// Put, which refuses or repairs it), and a canceled context fails.
func TestMayHoldAgreesWithHas(t *testing.T) {
	ctx := context.Background()
	s := newLoose(t, objects.BLAKE3)
	var stored, absent []objects.OID
	for i := range 400 {
		o := objects.NewBlob(objects.BLAKE3, fmt.Appendf(nil, "object %d", i))
		if i%4 == 0 {
			if err := s.Put(ctx, o); err != nil {
				t.Fatal(err)
			}
			stored = append(stored, o.ID)
		} else {
			absent = append(absent, o.ID)
		}
	}
	// A symlink where an object's file would be: Has fails on it.
	sym := objects.NewBlob(objects.BLAKE3, []byte("symlinked"))
	p, err := s.Path(sym.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p[:len(p)-63], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Has(ctx, sym.ID); err == nil {
		t.Fatal("Has of a symlinked object file did not fail")
	}
	ids := append(append(append([]objects.OID{}, stored...), absent...), sym.ID)
	got, err := s.MayHold(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	emptyDirs := 0
	for i, id := range ids {
		want := i < len(stored) || id == sym.ID
		if got[i] != want {
			t.Errorf("MayHold(%s) = %v, want %v", id, got[i], want)
		}
		fp, _ := s.Path(id)
		if _, err := os.Stat(fp[:len(fp)-63]); os.IsNotExist(err) {
			emptyDirs++
		}
	}
	if emptyDirs == 0 {
		t.Fatal("no id fell in a missing fan-out directory: the test checks too little")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.MayHold(canceled, ids); err == nil {
		t.Error("MayHold with a canceled context succeeded")
	}
}
