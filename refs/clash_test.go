package refs

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// TestNameClashSaysNothingWasWritten: a ref below an existing ref, a ref
// whose name is a directory of refs, and a transaction naming both are
// refused before anything is written, with an error that says so (not
// "state unknown"), and leave every ref and guard as they were.
func TestNameClashSaysNothingWasWritten(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1, r2 := g.run(objects.BLAKE3, "1"), g.run(objects.BLAKE3, "2")
	for _, name := range []string{"heads/a", "heads/c/d"} {
		if err := s.Create(ctx, name, r1, "t"); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, err error) {
		t.Helper()
		var us *fsutil.UnknownStateError
		if !errors.Is(err, ErrNameClash) || errors.As(err, &us) || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("%s: %v", what, err)
		}
	}
	check("heads/a/b beside heads/a", s.Create(ctx, "heads/a/b", r2, "t"))
	check("heads/c beside heads/c/d", s.UpdateExpect(ctx, "heads/c", r2, ExpectAny, "t"))
	tx := s.NewTransaction("t")
	tx.Create("heads/x", r1)
	tx.Create("heads/x-y", r1)
	tx.Create("heads/x/y", r2)
	check("heads/x and heads/x/y in one transaction", tx.Commit(ctx))
	if !strings.Contains(s.Create(ctx, "heads/a/b", r2, "t").Error(), "ref heads/a") {
		t.Error("the clash does not name the existing ref")
	}
	if mustRead(t, s, "heads/a") != r1 || mustRead(t, s, "heads/c/d") != r1 {
		t.Fatal("a clashing update changed a ref")
	}
	for _, name := range []string{"heads/a/b", "heads/c", "heads/x", "heads/x/y"} {
		if _, err := s.readRef(name); !errors.Is(err, ErrNotFound) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	noLocks(t, s)
	// An empty directory where the ref goes (a crash between a deletion
	// and the pruning of its directory) is no clash.
	if err := os.MkdirAll(s.refPath("heads/e"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "heads/e", r1, "t"); err != nil {
		t.Fatal(err)
	}
}
