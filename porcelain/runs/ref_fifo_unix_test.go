//go:build unix

package runs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/refs"
)

// TestResolveRefusesFIFORefFile checks a FIFO where a ref file belongs is
// refused at once (refs.ErrNotRegular) through the one bounded reader, where
// an open without O_NONBLOCK waited for a writer forever.
func TestResolveRefusesFIFORefFile(t *testing.T) {
	r := newRepo(t)
	dir := filepath.Join(r.Root(), "refs", "heads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "main")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	err := runstest.NoHang(t, p, func() error {
		_, _, err := runs.ResolveRun(context.Background(), r, "heads/main")
		return err
	})
	if !errors.Is(err, refs.ErrNotRegular) {
		t.Fatalf("FIFO ref file: %v, want refs.ErrNotRegular", err)
	}
}
