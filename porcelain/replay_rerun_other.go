//go:build !unix

package porcelain

import "os/exec"

// startGroup is a no-op where process groups are not available.
func startGroup(cmd *exec.Cmd) {}

// killGroup kills the command itself where process groups are not
// available; its children may outlive it.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
