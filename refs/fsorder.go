package refs

import "path/filepath"

// syncOrder is how a transaction orders the directory fsyncs after its
// renames and the reflog rows that follow them.
type syncOrder uint8

const (
	// orderAuto asks the file system (metadataOrdered) once per Store.
	orderAuto syncOrder = iota
	// orderSequential makes the renames durable (the directory fsyncs)
	// before any reflog row is written: on every file system a durable
	// row then names a durable ref value.
	orderSequential
	// orderOverlapped writes the reflog rows right after the renames and
	// fsyncs the directories and the logs together. It is used only where
	// the file system commits metadata in the order it was changed (a
	// journal replayed in order: ext4 with a journal, XFS), so a row, which
	// becomes visible only through its log's new size, cannot survive a
	// crash that its rename, an earlier change, does not. Its cost: the
	// directory and the log share one journal commit instead of waiting
	// for two in turn.
	orderOverlapped
)

// overlapSyncs reports whether the rows may be written before the renames
// are durable (orderOverlapped), asking the file system of refs/ and logs/
// the first time.
func (s *Store) overlapSyncs() bool {
	s.orderOnce.Do(func() {
		if s.order == orderAuto {
			s.order = orderSequential
			if metadataOrdered(filepath.Join(s.root, "refs"), filepath.Join(s.root, "logs")) {
				s.order = orderOverlapped
			}
		}
	})
	return s.order == orderOverlapped
}
