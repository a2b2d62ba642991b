//go:build !linux

package fsutil

import "os"

// WritebackStep is how many bytes a streaming writer lets accumulate
// before it calls StartWriteback on them. Without sync_file_range the
// fallback is an fsync, which waits, so the steps are larger.
const WritebackStep = 64 << 20

// StartWriteback makes the bytes written to f so far reach the disk
// before the stream ends, so that the fsync ending a long write has little
// left to do. Without Linux's sync_file_range the portable way is an
// fsync of the file, which the streaming writer issues from its own
// goroutine while the next chunks are read and hashed. It is a hint:
// durability still comes from the caller's final fsync, which reports any
// error, so an error here is not reported.
func StartWriteback(f *os.File, off, n int64) {
	_ = f.Sync()
}
