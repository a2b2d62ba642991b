package refs

import (
	"context"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestTransactionSyncsEachDirectoryOnce counts the fsyncs of a 1,000-ref
// transaction (100 new refs in each of 10 directories) through the
// fileSystem seam: O(refs) file fsyncs (a staging file and a reflog per
// ref, or one syncfs for the staging files) but O(directories) directory
// fsyncs. Before, each new reflog fsynced its directory on its own: 1,000
// directory fsyncs for 10 directories.
func TestTransactionSyncsEachDirectoryOnce(t *testing.T) {
	const dirs, perDir = 10, 100
	for _, tc := range []struct {
		name      string
		syncFSMin int
	}{{"fsync", 1 << 30}, {"syncfs", defaultSyncFSMin}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.syncFSMin == defaultSyncFSMin && !haveSyncFS {
				t.Skip("no syncfs(2) here")
			}
			s, g := newTestStore(t, objects.BLAKE3)
			s.syncFSMin = tc.syncFSMin
			count := &faultFS{root: s.root}
			s.fs = count
			txn := s.NewTransaction("t")
			for d := range dirs {
				for i := range perDir {
					name := fmt.Sprintf("tags/d%d/r%03d", d, i)
					txn.Create(name, g.run(objects.BLAKE3, name))
				}
			}
			if err := txn.Commit(context.Background()); err != nil {
				t.Fatal(err)
			}
			refs := dirs * perDir
			fsyncs, dirSyncs, fsSyncs := count.count(stepFsync), count.count(stepSyncDir), count.count(stepSyncFS)
			t.Logf("%d refs in %d directories: %d file fsyncs, %d directory fsyncs, %d syncfs", refs, dirs, fsyncs, dirSyncs, fsSyncs)
			// Per directory: the staging files' entries before the
			// journal (unless syncfs covered them), the renames, the new
			// reflogs; plus the journal's directory at commit and removal.
			if max := 3*dirs + 2; dirSyncs > max {
				t.Errorf("%d directory fsyncs for %d directories, want at most %d", dirSyncs, dirs, max)
			}
			// A staging file and a reflog per ref, and the journal.
			if max := 2*refs + 1; fsyncs > max {
				t.Errorf("%d file fsyncs for %d refs, want at most %d", fsyncs, refs, max)
			}
			if fsSyncs > 1 {
				t.Errorf("%d syncfs calls, want at most one", fsSyncs)
			}
			for d := range dirs {
				name := fmt.Sprintf("tags/d%d/r%03d", d, perDir-1)
				if len(mustLog(t, s, name)) != 1 {
					t.Errorf("reflog of %s does not hold its row", name)
				}
			}
		})
	}
}
