package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair, skipping the test where the
// environment has none.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal in this environment: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlock pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("pseudo-terminal number: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// startOnTerminal starts tine as the session leader of a new terminal
// (stdin the terminal, so tine is in its foreground group, as in a shell);
// stdout and stderr are captured; wait returns how it ended.
func startOnTerminal(t *testing.T, slave *os.File, args ...string) (wait func() (syscall.WaitStatus, string)) {
	t.Helper()
	cmd := tineCmd(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return func() (syscall.WaitStatus, string) {
		waitExit(t, cmd)
		return cmd.ProcessState.Sys().(syscall.WaitStatus), out.String() + errb.String()
	}
}

// TestRecordOnTerminalCommandReadsIt: on a terminal, the command can read
// it (a process group of its own would be stopped by SIGTTIN and tine
// would wait forever).
func TestRecordOnTerminalCommandReadsIt(t *testing.T) {
	master, slave := openPTY(t)
	_, repo := newHarnessRepo(t)
	wait := startOnTerminal(t, slave, "--repo", repo, "record", "--", "sh", "-c", `read x; echo "got $x"`)
	if _, err := master.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	go drain(master)
	if ws, out := wait(); ws.ExitStatus() != 0 || !strings.Contains(out, "got hello") {
		t.Fatalf("ended %v: %s", ws, out)
	}
	if run := loadRun(t, repo, "heads/main"); len(run.Events) != 1 {
		t.Fatalf("%d events, want 1", len(run.Events))
	}
}

// TestRecordOnTerminalCtrlCRecords: Ctrl-C typed on the terminal reaches
// the command (the terminal signals the whole foreground group), tine
// survives it, records the event with the signal, says so and then ends
// itself by SIGINT, as the command did. Before, Ctrl-C cancelled tine's
// own work and nothing was recorded.
func TestRecordOnTerminalCtrlCRecords(t *testing.T) {
	catchSIGINT(t)
	master, slave := openPTY(t)
	dir, repo := newHarnessRepo(t)
	pidFile := filepath.Join(dir, "pid")
	wait := startOnTerminal(t, slave, "--repo", repo, "record", "--", "sh", "-c",
		`echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 300`, "sh", pidFile)
	go drain(master)
	waitFile(t, pidFile)
	if _, err := master.Write([]byte{3}); err != nil { // ^C
		t.Fatal(err)
	}
	if ws, out := wait(); !ws.Signaled() || ws.Signal() != syscall.SIGINT || !strings.Contains(out, "tine: recorded ") {
		t.Fatalf("ended %v, want by SIGINT after the summary line: %s", ws, out)
	}
	run := loadRun(t, repo, "heads/main")
	e := run.Events[0]
	if attr(e, "signal") != "interrupt" || attr(e, "exit_code") != "130" || attr(e, "forwarded_signals") != "" {
		t.Fatalf("recorded event: %s", e.Object.Body)
	}
}

// drain reads the terminal's output (its echo) so it never fills.
func drain(master *os.File) {
	buf := make([]byte, 4096)
	for {
		if _, err := master.Read(buf); err != nil {
			return
		}
	}
}
