//go:build linux

package fsutil

import (
	"os"

	"golang.org/x/sys/unix"
)

// WritebackStep is how many bytes a streaming writer lets accumulate
// before it calls StartWriteback on them. On Linux that is a cheap,
// non-blocking request, so small steps keep the disk busy from the first
// megabytes on.
const WritebackStep = 8 << 20

// StartWriteback asks the kernel to start writing the n bytes of f at off
// to disk now, without waiting, so that the fsync ending a long write
// finds most of the data already on disk instead of all of it dirty in
// the page cache (where the kernel would otherwise leave it until its
// dirty thresholds or the fsync). It is a hint: durability still comes
// from the caller's fsync, so a file system that refuses the request
// (sync_file_range is not supported everywhere) only loses the overlap
// and the error is not reported.
func StartWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
