package pack

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// The directory lock: why a commit never loses half of its pair to a
// removal.
//
// A pack is named by its content, so a writer can commit a pack whose name
// is that of a pack being removed: the same objects written again (an
// import repeated, objects a prune deleted written anew), while a merge or
// a gc that copied the old pack into a bigger one deletes its files. A
// commit is two renames (pack file, then index) and a removal two
// unlinks (pack file, then index); interleaved, a removal deletes the new
// pack file or index, leaving a pack without its index or an index
// without its pack. RemoveGarbage's "index without its pack" is worse: a
// listing taken before (or, being no snapshot, during) a commit names the
// new index as one whose pack is gone, and deleting it leaves the only
// copy of the pack's objects unindexed.
//
// So every commit holds the flock on LockFile shared around its two
// renames, and every removal of a pack (Store.RemovePack, MergeSmall) and
// RemoveGarbage hold it exclusive around their listing and unlinks: a
// removal then sees each pair committed or not yet begun, never half.
// Commits do not exclude each other. The lock is innermost: nothing that
// holds it waits for another lock or process, so it cannot deadlock with
// the repository's locks (plumbing's objects/locks/), and the kernel drops
// a killed process's flock, so a crash never blocks anyone.

// LockFile is the file in a store's directory whose flock orders pack
// commits against pack removals (see above). It is created on first use
// and never removed: a lock file removed and created again would let two
// holders lock different files.
const LockFile = "lock"

// lockWaitHook, when set by a test, runs when the directory lock is taken
// by someone else, before waiting for it: the moment a test knows the
// lock holds the caller back.
var lockWaitHook func(exclusive bool)

// commitWindowHook, when set by a test, runs between the two renames of
// a commit (the pack file is in place, its index is not).
var commitWindowHook func(name string)

// removeWindowHook, when set by a test, runs in a removal before an index
// is deleted: between a removed pack's two unlinks, and before
// RemoveGarbage deletes an index whose pack it did not list.
var removeWindowHook func(name string)

// lockDir takes the flock on dir's LockFile, exclusive or shared, waiting
// while a conflicting one is held, and returns its release. A symlink in
// its place is refused, and a FIFO does not block the open.
func lockDir(dir string, exclusive bool) (release func(), err error) {
	path := filepath.Join(dir, LockFile)
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY|lockOpenFlags), flock.SetPermissions(0o644))
	try, wait := fl.TryRLock, fl.RLock
	if exclusive {
		try, wait = fl.TryLock, fl.Lock
	}
	ok, err := try()
	if err == nil && !ok {
		if lockWaitHook != nil {
			lockWaitHook(exclusive)
		}
		err = wait()
	}
	if err != nil {
		return nil, fmt.Errorf("storage pack lock %s: %w", path, err)
	}
	return func() { fl.Unlock() }, nil
}
