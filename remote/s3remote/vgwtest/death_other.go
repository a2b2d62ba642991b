//go:build !linux

package vgwtest

import "os/exec"

// dieWithParent does nothing where the kernel cannot tie a child's life
// to its parent's; Stop (or Cleanup) ends the server.
func dieWithParent(*exec.Cmd) {}
