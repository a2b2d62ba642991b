//go:build unix

package main

import (
	"bytes"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestLateInterruptStillEndsBySignal: an interrupt that arrives while a
// verb runs, which then completes anyway (it had passed its last point to
// stop), still ends tine by the signal, with a line saying the command
// completed, so a shell loop around it stops. Before, execute returned 0
// and no signal, and the loop went on. serve, view and record, for which
// the signal is their normal end, keep exiting as they did.
func TestLateInterruptStillEndsBySignal(t *testing.T) {
	completesAnyway := func(e *env) error {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			return err
		}
		select {
		case <-e.ctx.Done():
		case <-time.After(harnessTimeout):
			t.Error("the signal never reached the verb's context")
		}
		return nil
	}
	var stderr bytes.Buffer
	code, sig := execute(&globals{}, "update-ref", completesAnyway, true, nil, &bytes.Buffer{}, &stderr)
	if code != 143 || sig != syscall.SIGTERM {
		t.Fatalf("update-ref completed under SIGTERM: exit %d, signal %v; want 143 and SIGTERM", code, sig)
	}
	if want := "tine update-ref: interrupted; the command had completed before it could stop\n"; stderr.String() != want {
		t.Fatalf("stderr %q, want %q", stderr.String(), want)
	}
	stderr.Reset()
	if code, sig := execute(&globals{}, "serve", completesAnyway, true, nil, &bytes.Buffer{}, &stderr); code != 0 || sig != nil || stderr.Len() != 0 {
		t.Fatalf("serve stopped by SIGTERM: exit %d, signal %v, stderr %q; want 0, none, nothing", code, sig, stderr.String())
	}
}
