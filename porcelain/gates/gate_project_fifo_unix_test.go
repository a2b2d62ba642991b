//go:build unix

package gates_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tinehq/tine/porcelain/gates"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// TestContractFIFORefused checks the gate contract is read through the
// bounded regular-file reader: a FIFO as the contract is refused at once.
func TestContractFIFORefused(t *testing.T) {
	dir := t.TempDir()
	contract := filepath.Join(dir, "tine-gate.yml")
	if err := syscall.Mkfifo(contract, 0o644); err != nil {
		t.Fatal(err)
	}
	err := runstest.NoHang(t, contract, func() error { _, err := gates.LoadGateProject(dir); return err })
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("contract FIFO: %v", err)
	}
}
