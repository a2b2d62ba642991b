//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Setup makes cmd, once started, the leader of a new process group.
func Setup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Kill sends SIGKILL to cmd's whole process group. Called after cmd has
// exited, it still kills stragglers left in the group. When the group is
// gone it falls back to killing cmd itself.
func Kill(cmd *exec.Cmd) error { return signal(cmd, syscall.SIGKILL) }

// Terminate sends SIGTERM to cmd's whole process group, asking it to stop.
func Terminate(cmd *exec.Cmd) error { return signal(cmd, syscall.SIGTERM) }

// Signal sends sig to cmd's whole process group, so a shell's children
// get the signal the shell was sent; tine record forwards the signals it
// receives this way.
func Signal(cmd *exec.Cmd, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		if cmd.Process == nil {
			return nil
		}
		return cmd.Process.Signal(sig)
	}
	return signal(cmd, s)
}

func signal(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return nil
	}
	// The group id is the leader's pid.
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		return cmd.Process.Signal(sig)
	}
	return nil
}
