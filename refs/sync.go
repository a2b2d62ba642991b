package refs

import (
	"sync"
)

// defaultSyncParallel is how many fsyncs a transaction keeps in flight at
// once. On a journalling file system concurrent fsyncs of small files share
// journal commits, so a batch costs a few commits instead of one per file;
// past a few dozen the device queue, not the journal, is the limit.
const defaultSyncParallel = 32

// syncChunk is how many files a transaction holds open to fsync together:
// a transaction of any size needs at most this many descriptors.
const syncChunk = 1024

// A transaction makes its files durable with fsyncs, not with one
// syncfs(2) of the file system: syncfs also flushes every other dirty file
// there, so its cost depends on the neighbours. Measured on a shared 2-CPU
// VM (ext4), 1,000 and 5,000 new refs committed as fast or faster with
// concurrent fsyncs, and steadier.

// syncFiles fsyncs files, up to s.syncParallel at once, and returns the
// error of the first file, in slice order, that failed (and its index), so
// that a failure is reported the same way whatever the scheduling.
func (s *Store) syncFiles(files []file) (int, error) {
	jobs := make([]func() error, len(files))
	for i, f := range files {
		jobs[i] = f.Sync
	}
	return s.syncAll(jobs)
}

// syncAll runs jobs (fsyncs of files and directories), up to
// s.syncParallel at once, in slice order when one at a time, and returns
// the error of the first job, in slice order, that failed, and its index.
func (s *Store) syncAll(jobs []func() error) (int, error) {
	n := min(max(s.syncParallel, 1), len(jobs))
	if n <= 1 {
		for i, job := range jobs {
			if err := job(); err != nil {
				return i, err
			}
		}
		return -1, nil
	}
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = jobs[i]()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// closeFiles closes files and returns the first error, with its index.
func closeFiles(files []file) (int, error) {
	first, idx := error(nil), -1
	for i, f := range files {
		if err := f.Close(); err != nil && first == nil {
			first, idx = err, i
		}
	}
	return idx, first
}
