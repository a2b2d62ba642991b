package loose

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// Shape of the streaming pipeline of PutBlobFrom. The stream is read
// straight into aligned blocks of blockCap bytes, chunk after chunk; each
// time blockSize bytes past the last piece have been filled, the aligned
// part of them goes to the writers as a piece while the reader goes on
// filling the same block. The reader moves to a fresh block (copying the
// unaligned rest, under 4 KiB) when less than objects.ChunkRoom is left,
// so a chunk always lands where its reading ahead (NewRedactChunksAhead)
// put it: the redacting reader reads ahead only when the next chunk fits
// the block too, the same rule. blockCount blocks keep the reader, its
// read-ahead and two writers busy; memory stays about blockCount times
// blockCap whatever the blob's size.
const (
	blockSize  = 2 << 20
	blockCap   = 4 << 20
	blockCount = 4
	plainChunk = 1 << 20 // what plainChunks reads at a time
)

// StreamWriters is how many goroutines a PutBlobFrom keeps blocked in
// disk writes at most, besides the caller's goroutine that reads and
// hashes. The library leaves GOMAXPROCS alone (it is process-wide: pools
// sized while it is raised would keep the extra workers); a command that
// owns the process may raise it by this much around a stream, so that a
// writer blocked in a direct write keeps a processor of its own and the
// Go runtime need not take it back from the system call and hand it on
// (a thread wake-up each time) while the reader waits for one.
const StreamWriters = 2

// directIO lets streamBody try direct I/O; tests turn it off to cover the
// page-cache path on a file system that offers both.
var directIO = true

// errStopped is what the reader sees once a writer has failed; the
// writer's error is the one reported.
var errStopped = errors.New("stream stopped")

// block is one of a stream's aligned buffers. It goes back to the free
// list once the reader has moved on from it and its pieces are written.
type block struct {
	mem  []byte
	refs atomic.Int32 // the reader's, plus one per piece not yet written
}

// piece is part of a block the reader sends the writers, every body byte
// in it hashed, with its file offset.
type piece struct {
	data []byte
	off  int64
	blk  *block
}

// streamBody writes header and then the body of r to f while hashing the
// body into h, in overlapped stages: this goroutine reads (and, for an
// objects.ChunkReader such as the redacting reader, scrubs) the stream
// straight into aligned blocks and hashes each chunk where it lies while
// it is in cache; the redacting reader over a file reads the next chunk
// ahead on a goroutine of its own meanwhile, into the block where it will
// be hashed; two more goroutines write the pieces to disk. Hashing on a
// goroutine of its own overlapped it with the reading but cost more CPU
// (cold caches, a hand-off per chunk) and measured slower on a loaded
// machine, where CPU time decides (issue 13). Where the file
// system allows, the pieces are written with direct I/O (no copy into the
// page cache, no writeback left for the final fsync), else through the
// page cache with the writeback of every fsutil.WritebackStep bytes
// started as they are written. The unaligned end is written through the
// page cache last. It returns the body's size; a stored size past
// s.maxSize is refused with objects.ErrObjectTooLarge as soon as the
// reader sees it.
func (s *Store) streamBody(ctx context.Context, r io.Reader, f *os.File, tmp string, h hash.Hash, header []byte) (int64, error) {
	src, ok := r.(objects.ChunkReader)
	if !ok {
		src = plainChunks{r}
	}
	w := &blockWriter{f: f, tmp: tmp, faults: s.faults, free: make(chan *block, blockCount), stop: make(chan struct{})}
	defer w.release()
	// Before the blocks are unmapped, nothing may still be reading into
	// them (deferred calls run last first).
	defer src.Settle()
	for range blockCount {
		b, release, err := fsutil.AlignedBuffer(blockCap)
		if err != nil {
			return 0, fmt.Errorf("put blob: %w", err)
		}
		w.releases = append(w.releases, release)
		w.free <- &block{mem: b[:0]}
	}
	writers := 1
	if directIO && fsutil.SetDirect(f, true) == nil {
		w.direct.Store(true)
		writers = StreamWriters
	}
	full := make(chan piece, 2*blockCount*blockCap/blockSize)
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for p := range full {
				if w.failed() == nil {
					w.fail(w.writeBlock(p, writers == 1))
				}
				w.unref(p.blk)
			}
		})
	}
	n, last, lastOff, rerr := s.readBlocks(ctx, src, header, h, w, full)
	close(full)
	wg.Wait()
	if err := w.failed(); err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	return n, w.finish(last, lastOff)
}

// fill is where readBlocks is: the block it fills, the bytes in it (from
// the block's start), where the next piece starts in them, and the file
// offset of the block's first byte.
type fill struct {
	blk *block
	cur []byte
	ps  int
	off int64
}

// readBlocks is streamBody's reading stage: it appends header and then
// the chunks of src to blocks taken from w.free, hashes each chunk into h
// (the header is not hashed: h covers the body), sends each piece to be
// written, and returns the body's size and the last, partly filled piece
// with its file offset.
func (s *Store) readBlocks(ctx context.Context, src objects.ChunkReader, header []byte, h hash.Hash, w *blockWriter, out chan<- piece) (int64, []byte, int64, error) {
	var n int64
	blk, err := w.take()
	if err != nil {
		return 0, nil, 0, err
	}
	at := fill{blk: blk, cur: append(blk.mem, header...)}
	var retired *block
	for {
		if err := ctx.Err(); err != nil {
			return n, nil, 0, err
		}
		before := len(at.cur)
		next, err := src.ReadChunk(at.cur)
		if retired != nil {
			// What was read ahead into it has been consumed now.
			w.unref(retired)
			retired = nil
		}
		if err == io.EOF {
			return n, at.cur[at.ps:], at.off + int64(at.ps), nil
		}
		if err != nil {
			return n, nil, 0, fmt.Errorf("put blob: read: %w", err)
		}
		chunk := next[before:]
		if n += int64(len(chunk)); int64(len(header))+n > s.maxSize {
			return n, nil, 0, fmt.Errorf("put blob: over %d bytes: %w", s.maxSize, objects.ErrObjectTooLarge)
		}
		h.Write(chunk)
		if cap(next) == cap(at.cur) && &next[:1][0] == &at.cur[:1][0] {
			at.cur = next
		} else {
			// The chunk outgrew the block's room (a long key block, say)
			// and came in new memory, with anything read after it: copy
			// it in, block by block.
			for len(chunk) > 0 {
				k := copy(at.cur[len(at.cur):cap(at.cur)], chunk)
				at.cur, chunk = at.cur[:len(at.cur)+k], chunk[k:]
				if len(at.cur)-at.ps >= blockSize {
					w.seal(&at, out)
				}
				if len(chunk) > 0 {
					old := at.blk
					if err := w.moveOn(&at, out); err != nil {
						return n, nil, 0, err
					}
					w.unref(old)
				}
			}
		}
		if len(at.cur)-at.ps >= blockSize {
			w.seal(&at, out)
		}
		if cap(at.cur)-len(at.cur) < objects.ChunkRoom {
			retired = at.blk
			if err := w.moveOn(&at, out); err != nil {
				w.unref(retired)
				return n, nil, 0, err
			}
		}
	}
}

// blockWriter writes the pieces of a stream to f from its own goroutines,
// directly where the file system allows, else through the page cache.
type blockWriter struct {
	f        *os.File
	tmp      string
	faults   faultHook
	direct   atomic.Bool
	free     chan *block
	synced   int64 // page-cache mode: writeback started before this offset
	releases []func()

	errOnce sync.Once
	err     error
	stop    chan struct{} // closed when err is set
}

// take returns a free block with the reader's reference, or the writers'
// error once one failed.
func (w *blockWriter) take() (*block, error) {
	select {
	case b := <-w.free:
		b.refs.Store(1)
		return b, nil
	case <-w.stop:
		return nil, errStopped
	}
}

// unref drops one reference to b, freeing it with the last.
func (w *blockWriter) unref(b *block) {
	if b.refs.Add(-1) == 0 {
		w.free <- b
	}
}

// seal sends the aligned part of at's bytes past its last piece to be
// written, after the chunks in it are hashed.
func (w *blockWriter) seal(at *fill, out chan<- piece) {
	aligned := len(at.cur) / fsutil.DirectAlign * fsutil.DirectAlign
	if aligned <= at.ps {
		return
	}
	at.blk.refs.Add(1)
	out <- piece{data: at.cur[at.ps:aligned], off: at.off + int64(at.ps), blk: at.blk}
	at.ps = aligned
}

// moveOn seals at's aligned bytes and moves it to a fresh block starting
// with the unaligned rest. The caller still holds the old block's
// reference and drops it once nothing reads into it.
func (w *blockWriter) moveOn(at *fill, out chan<- piece) error {
	nb, err := w.take()
	if err != nil {
		return err
	}
	w.seal(at, out)
	rest := at.cur[at.ps:]
	*at = fill{blk: nb, cur: append(nb.mem, rest...), off: at.off + int64(at.ps)}
	return nil
}

// finish writes the last piece, which starts at file offset off: its
// aligned part like the others, the rest through the page cache. The
// caller still fsyncs f.
func (w *blockWriter) finish(last []byte, off int64) error {
	aligned := len(last) / fsutil.DirectAlign * fsutil.DirectAlign
	if err := w.writeBlock(piece{data: last[:aligned], off: off}, true); err != nil {
		return fmt.Errorf("put blob: %s: %w", stepWrite, err)
	}
	if w.direct.Load() {
		if err := fsutil.SetDirect(w.f, false); err != nil {
			return fmt.Errorf("put blob: %s: %w", stepWrite, err)
		}
		w.direct.Store(false)
	}
	if err := w.writeAt(last[aligned:], off+int64(aligned)); err != nil {
		return fmt.Errorf("put blob: %s: %w", stepWrite, err)
	}
	return nil
}

// release unmaps the blocks; every goroutine using them has ended.
func (w *blockWriter) release() {
	for _, r := range w.releases {
		r()
	}
}

// fail records the first error; a nil err records nothing.
func (w *blockWriter) fail(err error) {
	if err != nil {
		w.errOnce.Do(func() {
			w.err = fmt.Errorf("put blob: %s: %w", stepWrite, err)
			close(w.stop)
		})
	}
}

// failed returns the recorded error, if any.
func (w *blockWriter) failed() error {
	select {
	case <-w.stop:
		return w.err
	default:
		return nil
	}
}

// writeBlock writes one piece; a lone page-cache writer (ordered) then
// starts the writeback of what it has written.
func (w *blockWriter) writeBlock(p piece, ordered bool) error {
	if err := w.writeAt(p.data, p.off); err != nil {
		return err
	}
	if end := p.off + int64(len(p.data)); ordered && !w.direct.Load() && end-w.synced >= fsutil.WritebackStep {
		fsutil.StartWriteback(w.f, w.synced, end-w.synced)
		w.synced = end
	}
	return nil
}

// writeAt writes b at off. A direct write the file system refuses
// (EINVAL: it wants another alignment) is retried through the page cache,
// which then takes every later write.
func (w *blockWriter) writeAt(b []byte, off int64) error {
	if len(b) == 0 {
		return nil
	}
	direct := w.direct.Load()
	err := w.faults.fault(stepWrite, w.tmp)
	if err != nil {
		half := len(b) / 2 // a torn write
		if direct {
			half = half / fsutil.DirectAlign * fsutil.DirectAlign
		}
		b = b[:half]
	}
	_, werr := w.f.WriteAt(b, off)
	// The other writer may have turned direct I/O off already; a write
	// issued while it was on is retried all the same.
	if werr != nil && direct && errors.Is(werr, syscall.EINVAL) {
		w.direct.Store(false)
		if werr = fsutil.SetDirect(w.f, false); werr == nil {
			_, werr = w.f.WriteAt(b, off)
		}
	}
	if err == nil {
		err = werr
	}
	return err
}

// plainChunks reads a plain io.Reader as chunks of up to plainChunk bytes.
type plainChunks struct{ io.Reader }

// Settle implements objects.ChunkReader; plainChunks reads nothing ahead.
func (plainChunks) Settle() {}

// ReadChunk implements objects.ChunkReader.
func (p plainChunks) ReadChunk(buf []byte) ([]byte, error) {
	start := len(buf)
	if cap(buf)-start < plainChunk {
		grown := make([]byte, start, start+plainChunk)
		copy(grown, buf)
		buf = grown
	}
	n, err := io.ReadFull(p.Reader, buf[start:start+plainChunk])
	if n > 0 {
		return buf[:start+n], nil
	}
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return buf, err
}
