package plumbing

import (
	"context"
	"fmt"
	"io"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
)

// Defaults of BulkWriter batches: a batch is written when it holds this many
// objects or this many body bytes, whichever comes first. 1024 objects keep
// the fsync cost per object negligible; 64 MiB bounds the memory a batch
// holds.
const (
	DefaultBulkObjects = 1024
	DefaultBulkBytes   = 64 << 20
	// DefaultPackBulkObjects is the object bound for a store that writes a
	// batch as one storage pack: its cost is a few fsyncs per batch
	// whatever the size, so fewer, larger batches are faster (measured:
	// 10,000 1 KiB files took 3x longer in batches of 1024 than of 4096+).
	DefaultPackBulkObjects = 8192
)

// StreamThreshold is the size from which a file is stored as a blob by
// streaming it (hashing while writing, constant memory) instead of reading
// it into a batch.
const StreamThreshold = 16 << 20

// BulkOptions tunes a BulkWriter; zero fields take the defaults.
type BulkOptions struct {
	// MaxObjects is the most objects one batch holds.
	MaxObjects int
	// MaxBytes is the most body bytes one batch holds.
	MaxBytes int64
	// AroundStream, when not nil, is called before each blob is streamed
	// (PutBlobFrom) with the number of goroutines the store keeps blocked
	// in disk writes meanwhile (loose.StreamWriters), and the function it
	// returns when the stream ends. It lets the command that owns the
	// process raise GOMAXPROCS for exactly that long; the library never
	// changes it, as it is process-wide.
	AroundStream func(writers int) (restore func())
}

// BlobStreamer is implemented by stores that can store a blob from a reader
// in constant memory, hashing it as they write (loose.Store).
type BlobStreamer interface {
	PutBlobFrom(ctx context.Context, r io.Reader) (objects.OID, error)
}

// BulkWriter stores many objects with one durable write per batch: it
// collects objects and hands each full batch to the store's PutBatch
// (objects.BatchPutter). Which store does the writing decides the cost:
//
//   - the loose store (loose.Store), and Repo.Objects of a sha256
//     repository that keeps every object loose (Repo.StoragePacks), write
//     one file per object and fsync them concurrently, then each touched
//     directory once;
//   - a store that writes storage packs (combined.Store, what
//     Repo.Objects returns where tine may use them) turns a batch into one
//     new pack: a few fsyncs for the whole batch.
//
// A batch is the unit of durability: when Flush (or an Add that fills a
// batch) returns nil, every object of the batch is durable; when it fails,
// an unspecified subset of that batch may be stored (complete objects
// only, never a torn one) and earlier batches are unaffected. Objects are
// not validated here: callers check links first (blobs have none). A
// BulkWriter is not safe for concurrent use.
type BulkWriter struct {
	ctx     context.Context
	store   objects.Store
	opt     BulkOptions
	pending []*objects.Object
	size    int64
	stats   BulkStats
}

// BulkStats counts what a BulkWriter wrote.
type BulkStats struct {
	// Objects counts the objects handed to the store in batches.
	Objects int `json:"objects"`
	// Batches counts the batches written.
	Batches int `json:"batches"`
	// Streamed counts the blobs stored by streaming.
	Streamed int `json:"streamed"`
}

// NewBulkWriter returns a BulkWriter over store.
func NewBulkWriter(ctx context.Context, store objects.Store, opt BulkOptions) *BulkWriter {
	if opt.MaxObjects <= 0 {
		opt.MaxObjects = DefaultBulkObjects
		if _, packs := store.(interface{ Packs() *pack.Store }); packs {
			opt.MaxObjects = DefaultPackBulkObjects
		}
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultBulkBytes
	}
	return &BulkWriter{ctx: ctx, store: store, opt: opt}
}

// Add queues o and writes the batch when it is full; flushed reports that
// it did (so the caller may report the batch's objects as stored).
func (w *BulkWriter) Add(o *objects.Object) (flushed bool, err error) {
	w.pending = append(w.pending, o)
	w.size += int64(len(o.Body))
	if len(w.pending) < w.opt.MaxObjects && w.size < w.opt.MaxBytes {
		return false, nil
	}
	return true, w.Flush()
}

// Full reports whether adding an object of size bytes would overflow the
// pending batch, so a caller can flush first.
func (w *BulkWriter) Full(size int64) bool {
	return len(w.pending) > 0 && w.size+size > w.opt.MaxBytes
}

// Pending returns the number of queued objects not yet written.
func (w *BulkWriter) Pending() int { return len(w.pending) }

// Flush writes the queued objects as one batch.
func (w *BulkWriter) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	batch := w.pending
	w.pending, w.size = nil, 0
	if err := objects.PutAll(w.ctx, w.store, batch); err != nil {
		return fmt.Errorf("write batch of %d objects: %w", len(batch), err)
	}
	w.stats.Objects += len(batch)
	w.stats.Batches++
	return nil
}

// PutBlobFrom stores the bytes of r as a blob in constant memory, through
// the store's BlobStreamer (or its loose store's, for a store that exposes
// one). The pending batch is not flushed: blobs have no links, so the
// order of their writes does not matter.
func (w *BulkWriter) PutBlobFrom(r io.Reader) (objects.OID, error) {
	s, ok := blobStreamerOf(w.store)
	if !ok {
		return objects.OID{}, fmt.Errorf("store %T cannot stream blobs", w.store)
	}
	if w.opt.AroundStream != nil {
		defer w.opt.AroundStream(loose.StreamWriters)()
	}
	id, err := s.PutBlobFrom(w.ctx, r)
	if err == nil {
		w.stats.Streamed++
	}
	return id, err
}

// Stats returns what has been written so far.
func (w *BulkWriter) Stats() BulkStats { return w.stats }

// blobStreamerOf finds the streaming blob writer of a store: the store
// itself, or the loose store a combined store fronts (a large blob is best
// a loose file, which gc packs later).
func blobStreamerOf(s objects.Store) (BlobStreamer, bool) {
	if b, ok := s.(BlobStreamer); ok {
		return b, true
	}
	if l, ok := s.(interface{ Loose() *loose.Store }); ok && l.Loose() != nil {
		return l.Loose(), true
	}
	return nil, false
}
