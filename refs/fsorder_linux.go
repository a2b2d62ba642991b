package refs

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// File system magic numbers (statfs(2) f_type).
const (
	ext4Magic = 0xef53 // ext2, ext3 and ext4 share it
	xfsMagic  = 0x58465342
)

// metadataOrdered reports whether the file system holding dir commits
// metadata changes in the order they were made, so that a durable change
// implies every earlier one: XFS (always logged), and ext4 with a journal
// (jbd2 commits transactions in sequence and replays them in sequence; a
// row appended to a log makes it longer, a metadata change of a later or
// the same transaction as the rename before it). ext4 without a journal
// (and ext2) share ext4's magic number; only a journal listed under
// /proc/fs/jbd2 for the device holding dir counts. Anything else,
// including an error, is "no": the caller then orders with fsyncs alone.
func metadataOrdered(dir string) bool {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return false
	}
	switch uint64(fs.Type) {
	case xfsMagic:
		return true
	case ext4Magic:
		return hasJournal(dir)
	}
	return false
}

// hasJournal reports whether the block device holding dir has a jbd2
// journal: /proc/fs/jbd2/<device>-<journal inode> exists while one is in
// use, the device named as /sys/dev/block/<major>:<minor> names it.
func hasJournal(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	link, err := os.Readlink("/sys/dev/block/" + strconv.FormatUint(major, 10) + ":" + strconv.FormatUint(minor, 10))
	if err != nil {
		return false
	}
	matches, err := filepath.Glob(filepath.Join("/proc/fs/jbd2", filepath.Base(link)+"-*"))
	return err == nil && len(matches) > 0
}
