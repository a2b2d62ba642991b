package runs

import (
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/tinehq/tine/internal/procgroup"
)

// groupSignaler delivers the signals tine forwards to a recorded command.
type groupSignaler struct {
	cmd *exec.Cmd
	// shared is set when the command stays in tine's own process group:
	// tine is in the foreground of the terminal that is the command's
	// stdin. The command can then read that terminal and job control
	// (Ctrl-Z, fg) works as for any command; the terminal itself sends
	// Ctrl-C's SIGINT to both processes, so tine does not send it again.
	shared bool
}

// setupGroup decides how the command is signalled: the leader of its own
// process group, so that a signal reaches everything it started, unless
// tine runs in the foreground of the terminal the command reads (a
// separate group could not read it: the kernel stops background readers).
func setupGroup(cmd *exec.Cmd, stdin io.Reader) *groupSignaler {
	if f, ok := stdin.(*os.File); ok && foregroundOf(f) {
		return &groupSignaler{cmd: cmd, shared: true}
	}
	procgroup.Setup(cmd)
	return &groupSignaler{cmd: cmd}
}

// forward sends sig to the command: to its whole group, or, sharing
// tine's group, to the command itself. It reports whether it sent
// anything: the terminal's SIGINT already reached a command sharing the
// group.
func (g *groupSignaler) forward(sig os.Signal) bool {
	if !g.shared {
		_ = procgroup.Signal(g.cmd, sig) // the group may be gone already
		return true
	}
	if sig == syscall.SIGINT {
		return false
	}
	_ = g.cmd.Process.Signal(sig)
	return true
}
