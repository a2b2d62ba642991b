package loose

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// maxSyncWorkers bounds the fsyncs a batch runs at once. Concurrent fsyncs
// on one filesystem join the same journal commit, so a batch of n objects
// costs a few commits rather than n.
const maxSyncWorkers = 16

// Put stores o durably. See Store for what happens when the object is
// already present.
func (s *Store) Put(ctx context.Context, o *objects.Object) error {
	return s.PutBatch(ctx, []*objects.Object{o})
}

// pendingWrite is one object of a batch on its way to disk.
type pendingWrite struct {
	id     objects.OID
	fanDir string
	path   string
	stored []byte
	tmp    string   // temporary file name, "" once renamed or removed
	f      *os.File // open temporary file, nil once closed
	faults faultHook
}

// PutBatch stores every object of objs, paying for the syncs once per
// batch: all temporary files are written and fsynced concurrently, then
// renamed, then each touched directory is fsynced once. Objects already
// present with the right bytes cost one read and no write.
func (s *Store) PutBatch(ctx context.Context, objs []*objects.Object) (err error) {
	work, err := s.planWrites(ctx, objs)
	if err != nil || len(work) == 0 {
		return err
	}
	defer func() {
		for _, w := range work {
			if w.f != nil {
				w.f.Close()
			}
			if w.tmp != "" {
				os.Remove(w.tmp)
			}
		}
	}()
	// Each worker creates, writes and fsyncs its files; while one waits
	// for its fsync another creates the next file, and concurrent fsyncs
	// share journal commits.
	if err := parallel(len(work), func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return work[i].writeTemp()
	}); err != nil {
		return err
	}
	// The commit point of each object is its rename; from here on a failure
	// leaves some objects visible, which is harmless (they are complete).
	dirs := make(map[string]objects.OID)
	var order []string
	for _, w := range work {
		err := s.faults.fault(stepRename, w.path)
		if err == nil {
			err = os.Rename(w.tmp, w.path)
		}
		if err != nil {
			return fmt.Errorf("object %s: %s: %w", w.id, stepRename, err)
		}
		w.tmp = ""
		if _, ok := dirs[w.fanDir]; !ok {
			dirs[w.fanDir] = w.id
			order = append(order, w.fanDir)
		}
	}
	return parallel(len(order), func(i int) error {
		err := s.faults.fault(stepSyncDir, order[i])
		if err == nil {
			err = fsutil.SyncDir(order[i])
		}
		if err != nil {
			return fmt.Errorf("object %s: %s: %w", dirs[order[i]], stepSyncDir, &fsutil.UnknownStateError{Path: order[i], Err: err})
		}
		return nil
	})
}

// planWrites validates objs and returns the ones that need writing, once
// each, with their directories in place.
func (s *Store) planWrites(ctx context.Context, objs []*objects.Object) ([]*pendingWrite, error) {
	var seen map[objects.OID]struct{}
	if len(objs) > 1 {
		seen = make(map[objects.OID]struct{}, len(objs))
	}
	var work []*pendingWrite
	for _, o := range objs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := objects.CheckPut(s.algo, o); err != nil {
			return nil, err
		}
		if seen != nil {
			if _, dup := seen[o.ID]; dup {
				continue
			}
			seen[o.ID] = struct{}{}
		}
		stored := o.Stored()
		if int64(len(stored)) > s.maxSize {
			return nil, fmt.Errorf("object %s: %d bytes, the limit is %d: %w", o.ID, len(stored), s.maxSize, objects.ErrObjectTooLarge)
		}
		typeDir, fanDir, p := s.paths(o.ID)
		for _, d := range [...]string{typeDir, fanDir} {
			if err := s.checkDir(d, true); err != nil {
				return nil, fmt.Errorf("object %s: %w", o.ID, err)
			}
		}
		if s.holds(o.ID, stored) {
			continue
		}
		work = append(work, &pendingWrite{id: o.ID, fanDir: fanDir, path: p, stored: stored, faults: s.faults})
	}
	return work, nil
}

// writeTemp creates the temporary file beside the final name, writes the
// stored bytes into it, makes it read-only, fsyncs and closes it.
func (w *pendingWrite) writeTemp() error {
	err := w.faults.fault(stepCreateTemp, w.fanDir)
	var f *os.File
	if err == nil {
		f, err = os.CreateTemp(w.fanDir, objects.TempPrefix+w.id.Hex()[2:]+"-*")
	}
	if err != nil {
		return fmt.Errorf("object %s: %s: %w", w.id, stepCreateTemp, err)
	}
	w.f, w.tmp = f, f.Name()
	data := w.stored
	err = w.faults.fault(stepWrite, w.tmp)
	if err != nil {
		data = data[:len(data)/2] // a torn write
	}
	if _, werr := f.Write(data); err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("object %s: %s: %w", w.id, stepWrite, err)
	}
	if err := f.Chmod(objects.StoredFilePerm); err != nil {
		return fmt.Errorf("object %s: %w", w.id, err)
	}
	err = w.faults.fault(stepSync, w.tmp)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err != nil {
		return fmt.Errorf("object %s: %s: %w", w.id, stepSync, err)
	}
	return nil
}

// parallel runs fn(0..n-1) on up to maxSyncWorkers goroutines and returns
// the error of the lowest index that failed.
func parallel(n int, fn func(i int) error) error {
	if n == 1 {
		return fn(0)
	}
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, maxSyncWorkers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = fn(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdirAllSync creates a directory of the store durably.
func mkdirAllSync(dir string) error { return fsutil.MkdirAllSync(dir, objects.StoreDirPerm) }
