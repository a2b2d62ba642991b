//go:build !unix

package gate

import "os/exec"

// newGroup is a no-op where process groups are unavailable.
func newGroup(cmd *exec.Cmd) {}

// termGroup kills the child; without groups its descendants may survive.
func termGroup(cmd *exec.Cmd) { killGroup(cmd) }

// killGroup kills the child process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
