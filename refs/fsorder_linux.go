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

// metadataOrdered reports whether dirs are on one file system that
// commits metadata changes in the order they were made, so that a durable
// change implies every earlier one: XFS (always logged), and ext4 with a
// journal (jbd2 commits transactions in sequence and replays them in
// sequence; a row appended to a log makes it longer, a metadata change of
// a later or the same transaction as the rename before it). ext4 without a
// journal (and ext2) share ext4's magic number; only a journal listed
// under /proc/fs/jbd2 for the device counts. Two file systems never order
// their changes between them. Anything else, including an error, is "no":
// the caller then orders with fsyncs alone.
func metadataOrdered(dirs ...string) bool {
	dev, ok := oneDevice(dirs)
	if !ok {
		return false
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dirs[0], &fs); err != nil {
		return false
	}
	switch uint64(fs.Type) {
	case xfsMagic:
		return true
	case ext4Magic:
		return hasJournal(dev)
	}
	return false
}

// oneDevice returns the device that holds every one of dirs, and false
// when they are on different devices, none is given or one cannot be
// examined.
func oneDevice(dirs []string) (uint64, bool) {
	var dev uint64
	for i, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil {
			return 0, false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || (i > 0 && uint64(st.Dev) != dev) {
			return 0, false
		}
		dev = uint64(st.Dev)
	}
	return dev, len(dirs) > 0
}

// hasJournal reports whether block device dev has a jbd2 journal in use:
// /proc/fs/jbd2/<device>-<journal inode> exists while it does, the device
// named as /sys/dev/block/<major>:<minor> names it.
func hasJournal(dev uint64) bool {
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	link, err := os.Readlink("/sys/dev/block/" + strconv.FormatUint(major, 10) + ":" + strconv.FormatUint(minor, 10))
	if err != nil {
		return false
	}
	matches, err := filepath.Glob(filepath.Join("/proc/fs/jbd2", filepath.Base(link)+"-*"))
	return err == nil && len(matches) > 0
}
