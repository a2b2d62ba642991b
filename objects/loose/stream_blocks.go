package loose

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tinehq/tine/internal/fsutil"
)

// Shape of the block writer: streamed bytes are gathered into blockSize
// aligned blocks, blockCount of them in flight. With direct I/O two
// goroutines write blocks at once, so the disk always has the next
// request queued; through the page cache one is enough.
const (
	blockSize  = 4 << 20
	blockCount = 3
)

// directIO lets a blockWriter try direct I/O; tests turn it off to cover
// the page-cache path on a file system that offers both.
var directIO = true

// blockWriter writes a stream to f in aligned blocks from its own
// goroutines, so the caller copies bytes in while earlier blocks go to
// disk. Where the file system allows, it writes with direct I/O: the data
// goes from the blocks to the disk without being copied into the page
// cache and written back later, which on a large blob costs less CPU than
// the hashing and leaves the final fsync only the last blocks and the
// metadata. Otherwise it writes through the page cache and starts the
// writeback of every fsutil.WritebackStep bytes as they are written. The
// tail that does not fill an aligned block is written through the page
// cache at the end (finish).
type blockWriter struct {
	f      *os.File
	tmp    string
	faults faultHook
	direct atomic.Bool

	free    chan []byte
	full    chan block
	cur     []byte // the block being filled, nil when none
	off     int64  // file offset of cur
	synced  int64  // page-cache mode: writeback started before this offset
	wg      sync.WaitGroup
	release []func()
	closed  bool

	errOnce sync.Once
	err     error
	failed  chan struct{} // closed when err is set
}

// block is a filled block and where it goes in the file.
type block struct {
	b   []byte
	off int64
}

// newBlockWriter starts the writing goroutines of a blockWriter on f.
func newBlockWriter(f *os.File, tmp string, faults faultHook) (*blockWriter, error) {
	w := &blockWriter{f: f, tmp: tmp, faults: faults, free: make(chan []byte, blockCount), full: make(chan block, blockCount), failed: make(chan struct{})}
	for range blockCount {
		b, release, err := fsutil.AlignedBuffer(blockSize)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("put blob: %w", err)
		}
		w.release = append(w.release, release)
		w.free <- b[:0]
	}
	writers := 1
	if directIO && fsutil.SetDirect(f, true) == nil {
		w.direct.Store(true)
		writers = 2
	}
	for range writers {
		w.wg.Go(func() {
			for j := range w.full {
				if w.fail(nil) == nil {
					w.fail(w.writeBlock(j, writers == 1))
				}
				w.free <- j.b[:0]
			}
		})
	}
	return w, nil
}

// add copies p into blocks, handing each full one to the writers.
func (w *blockWriter) add(p []byte) error {
	for len(p) > 0 {
		if w.cur == nil {
			select {
			case w.cur = <-w.free:
			case <-w.failed:
				return w.err
			}
		}
		n := copy(w.cur[len(w.cur):cap(w.cur)], p)
		w.cur, p = w.cur[:len(w.cur)+n], p[n:]
		if len(w.cur) == cap(w.cur) {
			w.full <- block{w.cur, w.off}
			w.off += int64(len(w.cur))
			w.cur = nil
		}
	}
	return w.fail(nil)
}

// finish writes what add has not yet written: the aligned part of the
// last block directly, the rest through the page cache. It waits for
// every write; the caller still fsyncs f.
func (w *blockWriter) finish() error {
	var tail []byte
	tailOff := w.off
	if w.cur != nil {
		aligned := len(w.cur) / fsutil.DirectAlign * fsutil.DirectAlign
		tail = append(tail, w.cur[aligned:]...)
		tailOff += int64(aligned)
		if aligned > 0 {
			w.full <- block{w.cur[:aligned], w.off}
		} else {
			w.free <- w.cur
		}
		w.cur = nil
	}
	w.close()
	if err := w.fail(nil); err != nil {
		return err
	}
	if w.direct.Load() {
		if err := fsutil.SetDirect(w.f, false); err != nil {
			return fmt.Errorf("put blob: %s: %w", stepWrite, err)
		}
	}
	if err := w.writeAt(tail, tailOff); err != nil {
		return fmt.Errorf("put blob: %s: %w", stepWrite, err)
	}
	return nil
}

// close stops the writing goroutines, waits for them and releases the
// blocks; it is safe to call more than once.
func (w *blockWriter) close() {
	if w.closed {
		return
	}
	w.closed = true
	close(w.full)
	w.wg.Wait()
	for _, r := range w.release {
		r()
	}
}

// fail records the first error (a nil err records nothing) and returns
// the recorded one.
func (w *blockWriter) fail(err error) error {
	if err != nil {
		w.errOnce.Do(func() {
			w.err = fmt.Errorf("put blob: %s: %w", stepWrite, err)
			close(w.failed)
		})
	}
	select {
	case <-w.failed:
		return w.err
	default:
		return nil
	}
}

// writeBlock writes one block; a lone page-cache writer (ordered) then
// starts the writeback of what it has written.
func (w *blockWriter) writeBlock(j block, ordered bool) error {
	if err := w.writeAt(j.b, j.off); err != nil {
		return err
	}
	if end := j.off + int64(len(j.b)); ordered && !w.direct.Load() && end-w.synced >= fsutil.WritebackStep {
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
	err := w.faults.fault(stepWrite, w.tmp)
	if err != nil {
		half := len(b) / 2 // a torn write
		if w.direct.Load() {
			half = half / fsutil.DirectAlign * fsutil.DirectAlign
		}
		b = b[:half]
	}
	_, werr := w.f.WriteAt(b, off)
	if werr != nil && w.direct.Load() && errors.Is(werr, syscall.EINVAL) {
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
