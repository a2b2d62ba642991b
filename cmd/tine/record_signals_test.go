//go:build unix

package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRecordForwardsSignalsAndRecords sends SIGINT, SIGTERM and SIGHUP to
// tine while its command sleeps: the signal reaches the command's process
// group, the event is recorded with the signal and exit code 128+N, tine
// then ends itself by the same signal (a shell loop stops on it), and no
// process of the group is left. Before, SIGINT killed
// the command and recorded nothing, and SIGTERM/SIGHUP killed tine and
// left the command running.
func TestRecordForwardsSignalsAndRecords(t *testing.T) {
	catchSIGINT(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, repo := newHarnessRepo(t)
			pidFile := filepath.Join(dir, "pid")
			cmd := tineCmd(t, "--repo", repo, "record", "--", "sh", "-c",
				`echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 300`, "sh", pidFile)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			fmt.Sscan(waitFile(t, pidFile), &pid)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if got := waitSignaled(t, cmd); got != sig {
				t.Fatalf("tine ended by %v, want %v; stderr: %s", got, sig, errb.String())
			}
			waitGroupGone(t, pid)
			run := loadRun(t, repo, "heads/main")
			e := run.Events[len(run.Events)-1]
			if len(run.Events) != 1 || attr(e, "signal") != sig.String() || attr(e, "exit_code") != fmt.Sprint(128+int(sig)) || attr(e, "forwarded_signals") != sig.String() {
				t.Fatalf("recorded event: %s", e.Object.Body)
			}
			fsckClean(t, repo)
		})
	}
}

// TestRecordSecondSignalKillsGroupAndRecords: a command that traps SIGINT
// survives the forwarded first Ctrl-C; the second kills its whole group,
// and the event is still recorded (killed, 137, both signals listed);
// tine then ends itself by the SIGINT it was sent.
func TestRecordSecondSignalKillsGroupAndRecords(t *testing.T) {
	catchSIGINT(t)
	dir, repo := newHarnessRepo(t)
	pidFile, trapped := filepath.Join(dir, "pid"), filepath.Join(dir, "trapped")
	cmd := tineCmd(t, "--repo", repo, "record", "--", "sh", "-c",
		`trap 'echo yes > "$2"' INT; echo $$ > "$1.tmp" && mv "$1.tmp" "$1"; while :; do sleep 1; done`, "sh", pidFile, trapped)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(waitFile(t, pidFile), &pid)
	cmd.Process.Signal(syscall.SIGINT)
	waitFile(t, trapped) // the first Ctrl-C reached the command, which kept going
	cmd.Process.Signal(syscall.SIGINT)
	if got := waitSignaled(t, cmd); got != syscall.SIGINT {
		t.Fatalf("tine ended by %v, want SIGINT", got)
	}
	waitGroupGone(t, pid)
	run := loadRun(t, repo, "heads/main")
	e := run.Events[0]
	if attr(e, "signal") != "killed" || attr(e, "forwarded_signals") != "interrupt,killed" {
		t.Fatalf("recorded event: %s", e.Object.Body)
	}
}
