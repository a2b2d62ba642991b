//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
)

// Setup does nothing where process groups are not available.
func Setup(*exec.Cmd) {}

// Kill kills cmd itself where process groups are not available; its
// children may outlive it.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// Terminate is Kill where process groups and SIGTERM are not available.
func Terminate(cmd *exec.Cmd) error { return Kill(cmd) }

// Signal sends sig to cmd itself where process groups are not available.
func Signal(cmd *exec.Cmd, sig os.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Signal(sig)
}
