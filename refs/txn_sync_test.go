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
// ref) but O(directories) directory fsyncs. Before, each new reflog
// fsynced its directory on its own: 1,022 directory fsyncs for 10
// directories.
func TestTransactionSyncsEachDirectoryOnce(t *testing.T) {
	const dirs, perDir = 10, 100
	s, g := newTestStore(t, objects.BLAKE3)
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
	fsyncs, dirSyncs := count.count(stepFsync), count.count(stepSyncDir)
	t.Logf("%d refs in %d directories: %d file fsyncs, %d directory fsyncs", refs, dirs, fsyncs, dirSyncs)
	// Per directory: the staging files' entries before the journal, the
	// renames, the new reflogs; plus the journal's directory at commit
	// and at removal.
	if max := 3*dirs + 2; dirSyncs > max {
		t.Errorf("%d directory fsyncs for %d directories, want at most %d", dirSyncs, dirs, max)
	}
	// A staging file and a reflog per ref, and the journal.
	if max := 2*refs + 1; fsyncs > max {
		t.Errorf("%d file fsyncs for %d refs, want at most %d", fsyncs, refs, max)
	}
	for d := range dirs {
		for i := range perDir {
			name := fmt.Sprintf("tags/d%d/r%03d", d, i)
			if len(mustLog(t, s, name)) != 1 || mustRead(t, s, name) != g.run(objects.BLAKE3, name) {
				t.Fatalf("%s or its reflog row is missing", name)
			}
		}
	}
}
