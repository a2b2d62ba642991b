package objects

import (
	"errors"
	"fmt"
	"testing"
)

// TestNotFoundIsCheapAndReadsAsBefore: NotFound names the object and wraps
// ErrNotFound exactly as fmt.Errorf("object %s: %w") did, but builds its
// text only when asked: a read of a packed object misses the loose store
// first, and formatting that miss cost every read a few allocations.
func TestNotFoundIsCheapAndReadsAsBefore(t *testing.T) {
	id := BLAKE3.Derive(TypeBlob, 1, []byte("x"))
	err := NotFound(id)
	if want := fmt.Errorf("object %s: %w", id, ErrNotFound).Error(); err.Error() != want {
		t.Fatalf("NotFound reads %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, ErrNotFound) || !errors.Is(fmt.Errorf("wrapped: %w", err), ErrNotFound) {
		t.Fatal("NotFound does not wrap ErrNotFound")
	}
	if n := testing.AllocsPerRun(100, func() { _ = NotFound(id) }); n > 1 {
		t.Fatalf("NotFound allocates %.0f times, want at most 1 (its text is built on demand)", n)
	}
}
