package vgwtest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the server when the test binary dies
// (a test timeout's panic skips every Cleanup), so no server outlives its
// tests.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
