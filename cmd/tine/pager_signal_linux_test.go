package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptWaitsForThePager interrupts a real `tine log` while its
// $PAGER shows the output on a terminal, as Ctrl-C there does (the
// signal goes to the whole foreground group; the pager, like less,
// handles it itself). tine leaves the pager running until the user quits
// it, then ends by the signal, as git does. Before, the interrupt killed
// the pager with SIGKILL (a killed less leaves the terminal in raw mode),
// dumped the whole output onto the terminal under it and exited 0; a
// second Ctrl-C ended tine with the pager still running on the terminal.
func TestInterruptWaitsForThePager(t *testing.T) {
	catchSIGINT(t)
	for _, tc := range []struct {
		name    string
		signals []syscall.Signal
	}{
		{"one Ctrl-C", []syscall.Signal{syscall.SIGINT}},
		{"two Ctrl-C", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, slave := openPTY(t)
			repo := t.TempDir()
			if code, _, stderr := tineRun(t, "", "init", repo); code != exitOK {
				t.Fatal(stderr)
			}
			if code, _, stderr := tineRun(t, "", "--repo", repo, "record", "--", "true"); code != exitOK {
				t.Fatal(stderr)
			}
			marks := t.TempDir()
			mark := func(name string) string { return filepath.Join(marks, name) }
			// A pager that, like less, survives the terminal's signals,
			// reads all of its input and shows it until told to quit.
			pager := `trap '' INT TERM; cat >/dev/null; touch "$M/started"; while [ ! -e "$M/quit" ]; do sleep 0.05; done; touch "$M/done"`
			cmd := tineCmd(t, "--repo", repo, "log")
			cmd.Env = append(os.Environ(), "TINE_DIR=", "PAGER="+pager, "M="+marks)
			cmd.Stdout = slave
			var errb bytes.Buffer
			cmd.Stderr = &errb
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			for deadline := time.Now().Add(harnessTimeout); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(mark("started")); err == nil {
					break
				}
				select {
				case <-exited:
					t.Fatalf("tine exited before its pager started: %v, %s", waitErr, errb.String())
				default:
				}
				if time.Now().After(deadline) {
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					t.Fatal("the pager never started")
				}
			}
			for _, sig := range tc.signals {
				// As the terminal driver does: to the whole group.
				if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
					t.Fatal(err)
				}
			}
			// Give a tine that does not wait for its pager the chance to
			// end under it; one that waits is still there.
			select {
			case <-exited:
				t.Fatalf("tine ended (%v) while its pager still ran; stderr %q", waitErr, errb.String())
			case <-time.After(500 * time.Millisecond):
			}
			if err := os.WriteFile(mark("quit"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(harnessTimeout):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatal("tine did not exit after its pager quit")
			}
			if _, err := os.Stat(mark("done")); err != nil {
				t.Fatalf("the pager was killed before the user quit it (tine: %v, stderr %q)", waitErr, errb.String())
			}
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != tc.signals[0] || !strings.HasPrefix(errb.String(), "tine log: interrupted") {
				t.Fatalf("tine ended with %v, stderr %q; want ended by %v, interrupted", cmd.ProcessState, errb.String(), tc.signals[0])
			}
		})
	}
}
