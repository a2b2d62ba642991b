//go:build unix

package trust_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/trust"
)

// TestReadArtifactFileRefusesFIFO checks a FIFO named x.tine is refused at
// once by the one bounded reader: a plain open would wait for a writer
// forever before any regular-file check could run.
func TestReadArtifactFileRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.tine")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	err := runstest.NoHang(t, p, func() error { _, err := trust.ReadArtifactFile(p); return err })
	if err == nil || !strings.Contains(err.Error(), "must be a regular file") {
		t.Fatalf("FIFO artifact: %v", err)
	}
}
