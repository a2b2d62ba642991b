//go:build !unix

package loop

import "os/exec"

// startGroup has no process groups to set up off unix.
func startGroup(*exec.Cmd) {}

// killGroup kills the step command itself off unix.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
