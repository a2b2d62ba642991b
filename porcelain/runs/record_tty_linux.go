package runs

import (
	"os"
	"syscall"
	"unsafe"
)

// foregroundOf reports whether f is a terminal whose foreground process
// group is tine's own.
func foregroundOf(f *os.File) bool {
	var pgrp int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
	return errno == 0 && int(pgrp) == syscall.Getpgrp()
}
