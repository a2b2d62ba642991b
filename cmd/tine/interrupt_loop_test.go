//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestShellLoopStopsOnCtrlC runs tine record in a bash loop and sends
// SIGINT to the loop's whole process group, as Ctrl-C on a terminal does:
// the first command is interrupted and recorded, tine ends by SIGINT, and
// bash, seeing its child die by the signal it got too, stops the loop
// (no second event, no "after"). Before, tine exited 130, which bash
// reads as a command that handled Ctrl-C itself, and the loop went on.
func TestShellLoopStopsOnCtrlC(t *testing.T) {
	catchSIGINT(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	bin, err := exec.LookPath("tine")
	if err != nil {
		t.Fatal(err)
	}
	dir, repo := newHarnessRepo(t)
	pidFile := filepath.Join(dir, "pid")
	// Only the first command waits to be interrupted; the later ones end
	// at once, so a loop that goes on prints "after" quickly.
	loop := `for i in 1 2 3; do I=$i "$TINE" --repo "$REPO" record -- sh -c '
		if [ "$I" = 1 ]; then echo $$ > "$PIDFILE.tmp" && mv "$PIDFILE.tmp" "$PIDFILE" && exec sleep 300; fi'
	done; echo after`
	cmd := exec.Command(bash, "-c", loop)
	cmd.Env = append(os.Environ(), "TINE="+bin, "REPO="+repo, "PIDFILE="+pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFile(t, pidFile)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd)
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT || strings.Contains(out.String(), "after") {
		t.Fatalf("bash ended %v (exit %d), stdout %q, stderr %q; want it stopped by SIGINT without \"after\"", ws, code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "tine: recorded ") {
		t.Fatalf("no summary line from the interrupted record: %q", errb.String())
	}
	if run := loadRun(t, repo, "heads/main"); len(run.Events) != 1 || attr(run.Events[0], "signal") != "interrupt" {
		t.Fatalf("%d events, want the interrupted one only", len(run.Events))
	}
}
