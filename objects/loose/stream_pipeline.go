package loose

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/tinehq/tine/objects"
)

// Shape of the streaming pipeline of PutBlobFrom: pipeChunk is the size of
// a chunk read from a plain reader (a ChunkReader picks its own, about
// objects.RedactChunk), and pipeBuffers how many chunks are in flight
// between the reader, the hasher and the writer. Four ~1 MiB buffers keep
// every stage busy while memory stays a few MiB whatever the blob's size.
const (
	pipeChunk   = 1 << 20
	pipeBuffers = 4
)

// errStopped is what the reader sees once the writer has failed; the
// writer's own error is the one reported.
var errStopped = errors.New("stream stopped")

// streamBody writes header and then the body of r to f while hashing the
// body into h, in three overlapped stages: this goroutine reads (and, for
// an objects.ChunkReader such as the redacting reader, scrubs) chunks; a
// second hashes them; a third copies them into a blockWriter, whose own
// goroutines write them to disk (directly where the file system allows,
// else through the page cache with writeback started as they go), so the
// final fsync has little left to wait for. Chunks travel through
// pipeBuffers recycled buffers, in order, so h sees exactly the bytes f
// gets. It returns the body's size; a stored size past s.maxSize is
// refused with objects.ErrObjectTooLarge as soon as the reader sees it.
func (s *Store) streamBody(ctx context.Context, r io.Reader, f *os.File, tmp string, h hash.Hash, header []byte) (int64, error) {
	src, ok := r.(objects.ChunkReader)
	if !ok {
		src = plainChunks{r}
	}
	bw, err := newBlockWriter(f, tmp, s.faults)
	if err != nil {
		return 0, err
	}
	free := make(chan []byte, pipeBuffers)
	for range pipeBuffers {
		free <- nil
	}
	toHash := make(chan []byte, pipeBuffers)
	toWrite := make(chan []byte, pipeBuffers)
	stop := make(chan struct{}) // closed by the writer when it fails
	werr := make(chan error, 1)
	go func() {
		defer close(toWrite)
		for b := range toHash {
			h.Write(b)
			toWrite <- b
		}
	}()
	go func() {
		werr <- writeChunks(bw, header, toWrite, free, stop)
	}()
	n, rerr := s.readChunks(ctx, src, int64(len(header)), free, toHash, stop)
	close(toHash)
	if err := <-werr; err != nil {
		return 0, err
	}
	return n, rerr
}

// readChunks is streamBody's reading stage: it fills free buffers from src
// and sends them on, until the end of src, an error, or stop.
func (s *Store) readChunks(ctx context.Context, src objects.ChunkReader, off int64, free <-chan []byte, out chan<- []byte, stop <-chan struct{}) (int64, error) {
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		var buf []byte
		select {
		case buf = <-free:
		case <-stop:
			return n, errStopped
		}
		chunk, err := src.ReadChunk(buf)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("put blob: read: %w", err)
		}
		if n += int64(len(chunk)); off+n > s.maxSize {
			return n, fmt.Errorf("put blob: over %d bytes: %w", s.maxSize, objects.ErrObjectTooLarge)
		}
		out <- chunk
	}
}

// writeChunks is streamBody's writing stage: it gives header and then each
// chunk of in to bw and hands the chunk's buffer back on free. After a
// failure it closes stop and keeps draining in, so the other stages never
// block; at the end of in it finishes bw (or, after a failure, closes it).
func writeChunks(bw *blockWriter, header []byte, in <-chan []byte, free chan<- []byte, stop chan struct{}) error {
	failed := bw.add(header)
	if failed != nil {
		close(stop)
	}
	for b := range in {
		if failed == nil {
			if failed = bw.add(b); failed != nil {
				close(stop)
			}
		}
		free <- b
	}
	if failed != nil {
		bw.close()
		return failed
	}
	return bw.finish()
}

// plainChunks reads a plain io.Reader as pipeChunk-byte chunks.
type plainChunks struct{ io.Reader }

// ReadChunk implements objects.ChunkReader.
func (p plainChunks) ReadChunk(buf []byte) ([]byte, error) {
	if cap(buf) < pipeChunk {
		buf = make([]byte, pipeChunk)
	}
	n, err := io.ReadFull(p.Reader, buf[:pipeChunk])
	if n > 0 && (err == io.ErrUnexpectedEOF || err == io.EOF) {
		err = nil
	}
	if n == 0 && err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return buf[:n], err
}
