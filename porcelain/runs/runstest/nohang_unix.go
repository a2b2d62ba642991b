//go:build unix

package runstest

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// NoHang runs f under a one-minute guard; if it blocks, opening fifo for
// writing releases it and the test fails instead of hanging the suite.
func NoHang(t testing.TB, fifo string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatalf("reading the FIFO %s blocked", fifo)
		return nil
	}
}
