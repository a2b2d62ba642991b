//go:build unix

package gate

import (
	"os/exec"
	"syscall"
)

// newGroup makes the child lead a new process group so that a timeout can
// kill everything it started (SPEC §2: start_new_session, killpg).
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// termGroup asks the child's whole process group to stop.
func termGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }

// killGroup kills the child's whole process group. It is safe to call
// after the child exited: stragglers in the group still die.
func killGroup(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return
	}
	// The group id is the leader's pid; ESRCH means all are gone already.
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
