package refs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestDeleteDamagedRef: a ref file that holds no value of this repository
// (garbage, an oid of the other hash, an oversized file) can be neither
// read nor moved, but a delete that expects any existing value removes
// it; one that names a value still fails on it, and so does an update.
func TestDeleteDamagedRef(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1 := g.run(objects.BLAKE3, "1")
	other := g.run(objects.SHA256, "other")
	for name, content := range map[string]string{
		"garbage":  "garbage\n",
		"sha256":   other.String() + "\n",
		"oversize": strings.Repeat("x", MaxRefFileBytes+1),
	} {
		t.Run(name, func(t *testing.T) {
			ref := "heads/" + name
			if err := os.WriteFile(filepath.Join(s.root, "refs", ref), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Read(ctx, ref); err == nil {
				t.Fatal("a damaged ref read as a value")
			}
			if err := s.Update(ctx, ref, r1, r1, "x"); err == nil {
				t.Fatal("a damaged ref was moved")
			}
			if err := s.Delete(ctx, ref, ExpectValue(r1)); err == nil || errors.Is(err, ErrNotFound) {
				t.Fatalf("delete naming a value of a damaged ref = %v, want its damage", err)
			}
			if err := s.Delete(ctx, ref, ExpectExists); err != nil {
				t.Fatalf("delete of a damaged ref = %v", err)
			}
			if _, err := s.Read(ctx, ref); !errors.Is(err, ErrNotFound) {
				t.Fatalf("read after the delete = %v", err)
			}
			noLocks(t, s)
		})
	}
}
