package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/tinehq/tine/objects"
)

// Bounds of HashObjectPaths.
const (
	// inlineMax is the largest file read whole into a batch; larger files
	// (and anything not a regular file) are streamed one at a time.
	inlineMax = 1 << 20
	// readBudgetBytes bounds the file bytes read ahead of the batch.
	readBudgetBytes = 64 << 20
	// pathChunk is how many paths one worker job reads.
	pathChunk = 64
	// maxPathLine bounds one line of the path list.
	maxPathLine = 64 << 10
)

// HashPathsOptions configures HashObjectPaths.
type HashPathsOptions struct {
	// Type is the object type of every file; empty means blob.
	Type objects.Type
	// Write stores the objects.
	Write bool
	// Canonicalize hashes the canonical form of json inputs (see
	// HashObjectOptions).
	Canonicalize bool
	// ObjectFormat picks the hash without a repository (see
	// HashObjectOptions).
	ObjectFormat objects.Algo
	// Paths is the newline-separated list of files, one per line.
	Paths io.Reader
	// Bulk tunes the write batches.
	Bulk BulkOptions
	// Workers is the number of concurrent file readers; 0 means GOMAXPROCS.
	Workers int
	// Store, when not nil, receives the writes instead of r.Objects(): a
	// benchmark or an importer can hand in a pack-writing store
	// (combined.Store) before Repo serves one.
	Store objects.Store
}

// HashPathsResult summarizes a HashObjectPaths call.
type HashPathsResult struct {
	// Objects counts the inputs hashed (and stored, with Write).
	Objects int `json:"objects"`
	// Written is what the bulk writer did, with Write.
	Written BulkStats `json:"written"`
}

// HashObjectPaths is `tine hash-object --stdin-paths`: it reads one path
// per line from opt.Paths, hashes each file as an object of opt.Type and,
// with Write, stores it. It calls emit once per input, in input order.
//
// Files are read and hashed by parallel workers; the objects are stored in
// batches through a BulkWriter (one durable write per batch), and files
// over 1 MiB are streamed in constant memory. Memory stays bounded: at
// most 64 MiB of file bytes are read ahead, plus the batch being written.
//
// Failure semantics: with Write, emit is called for an input only once its
// object is durable, so the oids printed are exactly the objects stored.
// The first failing input (a missing file, an unreadable one, a refused
// json body, a link to a missing object) stops the run: every input before
// it is stored and emitted, nothing after it is written, and the error
// names the path and its line. Objects of json types are validated like
// hash-object -w validates them, against the store, the shallow set and
// the inputs before them.
func HashObjectPaths(ctx context.Context, r *Repo, opt HashPathsOptions, emit func(HashedObject) error) (*HashPathsResult, error) {
	t := opt.Type
	if t == "" {
		t = objects.TypeBlob
	}
	if !t.Valid() {
		return nil, fmt.Errorf("hash-object: unknown type %q: %w", t, ErrBadInput)
	}
	if opt.Canonicalize && t == objects.TypeBlob {
		return nil, fmt.Errorf("hash-object: --canonicalize applies to json types, not blobs: %w", ErrBadInput)
	}
	algo, err := hashAlgo(r, HashObjectOptions{Write: opt.Write, ObjectFormat: opt.ObjectFormat})
	if err != nil {
		return nil, err
	}
	if opt.Paths == nil {
		return nil, fmt.Errorf("hash-object: no path list: %w", ErrBadInput)
	}
	c := &pathCollector{ctx: ctx, algo: algo, typ: t, emit: emit, res: &HashPathsResult{}}
	store := opt.Store
	if opt.Write && store == nil {
		store = r.Objects()
	}
	if opt.Write {
		c.bulk = NewBulkWriter(ctx, store, opt.Bulk)
		if t != objects.TypeBlob {
			shallow, err := r.shallowSet()
			if err != nil {
				return nil, fmt.Errorf("hash-object: %w", err)
			}
			c.resolver = &WriteResolver{ctx: ctx, store: store, pending: map[objects.OID]*objects.Object{}, shallow: shallow}
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := startPathReaders(ctx, opt.Paths, workers, func(path string, hold func(int64) bool) pathResult {
		return readPathObject(algo, t, opt.Canonicalize, path, hold)
	})
	defer p.stop()
	err = c.consume(p)
	c.res.Written = c.written()
	return c.res, err
}

// pathCollector consumes worker results in input order.
type pathCollector struct {
	ctx      context.Context
	algo     objects.Algo
	typ      objects.Type
	emit     func(HashedObject) error
	bulk     *BulkWriter
	resolver *WriteResolver
	queued   []HashedObject // stored or pending, not yet emitted
	res      *HashPathsResult
}

// consume processes every chunk in order; on the first failure it stores
// and emits what came before it and returns the failure.
func (c *pathCollector) consume(p *pathPipeline) error {
	for ch := range p.order {
		select {
		case <-ch.done:
		case <-c.ctx.Done():
			return c.finish(c.ctx.Err())
		}
		p.budget.advance(ch.seq + 1)
		if ch.err != nil {
			return c.finish(ch.err)
		}
		for i := range ch.paths {
			r := &ch.results[i]
			p.budget.release(r.held)
			if err := c.take(ch.paths[i], r); err != nil {
				return c.finish(fmt.Errorf("hash-object: %s (line %d): %w", ch.paths[i], ch.firstLine+i, err))
			}
		}
	}
	return c.finish(nil)
}

// take handles one input's result.
func (c *pathCollector) take(path string, r *pathResult) error {
	if r.err != nil {
		return r.err
	}
	if r.obj == nil {
		// Too large (or not a regular file) to read whole: stream it.
		id, n, err := streamFileBlob(c.ctx, c.algo, c.bulk, path)
		if err != nil {
			return err
		}
		return c.queue(HashedObject{Source: path, OID: id.String(), Type: objects.TypeBlob, Size: int(n), Written: c.bulk != nil})
	}
	o := r.obj
	if c.resolver != nil {
		if _, err := objects.Validate(o, c.resolver); err != nil {
			return nameObject(o, err)
		}
		c.resolver.pending[o.ID] = o
	}
	h := HashedObject{Source: path, OID: o.ID.String(), Type: o.Type, Size: len(o.Body), Written: c.bulk != nil}
	if c.bulk == nil {
		return c.queue(h)
	}
	if c.bulk.Full(int64(len(o.Body))) {
		if err := c.flush(); err != nil {
			return err
		}
	}
	c.queued = append(c.queued, h)
	flushed, err := c.bulk.Add(o)
	if err != nil {
		return err
	}
	if flushed {
		return c.emitQueued()
	}
	return nil
}

// queue records a finished input: emitted at once unless earlier inputs
// still wait for their batch.
func (c *pathCollector) queue(h HashedObject) error {
	c.queued = append(c.queued, h)
	if c.bulk == nil || c.bulk.Pending() == 0 {
		return c.emitQueued()
	}
	return nil
}

// flush writes the pending batch and emits its inputs.
func (c *pathCollector) flush() error {
	if c.bulk != nil {
		if err := c.bulk.Flush(); err != nil {
			return err
		}
		if c.resolver != nil {
			clear(c.resolver.pending)
		}
	}
	return c.emitQueued()
}

// emitQueued reports every queued input, in order.
func (c *pathCollector) emitQueued() error {
	if c.resolver != nil && c.bulk.Pending() == 0 {
		clear(c.resolver.pending)
	}
	for _, h := range c.queued {
		if err := c.emit(h); err != nil {
			return err
		}
		c.res.Objects++
	}
	c.queued = c.queued[:0]
	return nil
}

// finish stores and emits what is pending, then returns cause (or the
// flush's failure).
func (c *pathCollector) finish(cause error) error {
	if err := c.flush(); err != nil {
		return errors.Join(cause, fmt.Errorf("hash-object: %w", err))
	}
	return cause
}

// written returns the bulk writer's figures.
func (c *pathCollector) written() BulkStats {
	if c.bulk == nil {
		return BulkStats{}
	}
	return c.bulk.Stats()
}

// pathResult is one file read by a worker: an object, or nil obj for a
// file to stream, or an error.
type pathResult struct {
	obj  *objects.Object
	held int64 // read-budget bytes to release once consumed
	err  error
}

// readPathObject reads and hashes one file (the worker's part). hold takes
// read budget for the file's bytes before they are read.
func readPathObject(a objects.Algo, t objects.Type, canonicalize bool, path string, hold func(int64) bool) pathResult {
	data, held, err := readPathInput(path, t == objects.TypeBlob, hold)
	if err != nil || data == nil {
		return pathResult{held: held, err: err} // nil data, no error: stream it
	}
	o, err := buildObject(a, t, data, canonicalize)
	if err == nil && t != objects.TypeBlob {
		_, err = objects.Links(o)
	}
	if err != nil {
		return pathResult{held: held, err: err}
	}
	return pathResult{obj: o, held: held}
}

// readBudget bounds the bytes workers hold ahead of the collector. The
// chunk the collector waits for (head) may always proceed, so a full
// budget never deadlocks the pipeline.
type readBudget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	free   int64
	head   int64
	closed bool
}

func newReadBudget(n int64) *readBudget {
	b := &readBudget{free: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire takes n bytes for chunk seq; false means the pipeline stopped.
func (b *readBudget) acquire(n, seq int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n && seq > b.head && !b.closed {
		b.cond.Wait()
	}
	b.free -= n
	return !b.closed
}

// release returns n bytes.
func (b *readBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// advance makes seq the chunk the collector waits for.
func (b *readBudget) advance(seq int64) {
	b.mu.Lock()
	b.head = seq
	b.mu.Unlock()
	b.cond.Broadcast()
}

// close wakes and stops every waiter.
func (b *readBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}
