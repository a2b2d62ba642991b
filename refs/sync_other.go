//go:build !linux

package refs

import "errors"

// haveSyncFS reports whether syncFS is implemented here: syncfs(2) is
// Linux's.
const haveSyncFS = false

// syncFS is never called where haveSyncFS is false.
func syncFS(string) error { return errors.New("syncfs is not available on this system") }
