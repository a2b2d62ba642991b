package plumbing

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tinehq/tine/objects"
)

// streamFileBlob hashes the file at path as a blob in constant memory and,
// when w is not nil, stores it through w's streaming writer, which hashes
// while it writes. It returns the oid and the body size. A blob is bounded
// by objects.MaxLooseObjectSize, stored or only hashed: the caller refused
// a larger file from its size already, and a body that grows past the
// bound while it is read is refused here (ErrObjectTooLarge).
func streamFileBlob(ctx context.Context, a objects.Algo, w *BulkWriter, path string) (objects.OID, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return objects.OID{}, 0, err
	}
	defer f.Close()
	// Secrets are scrubbed before hashing here too (SPEC §1.7), as the
	// stream passes: cr counts the stored (redacted) bytes. The store's
	// writer reads the chunks straight into the blocks it writes, hashing
	// one while it writes another (loose.Store.PutBlobFrom), and the file
	// is read ahead into those blocks while a chunk is hashed.
	if w != nil {
		cr := &countingChunks{ctx: ctx, r: objects.NewRedactChunksAhead(f)}
		id, err := w.PutBlobFrom(cr)
		if err != nil {
			return objects.OID{}, 0, fmt.Errorf("%s: %w", path, err)
		}
		return id, cr.n, nil
	}
	cr := &countingChunks{ctx: ctx, r: objects.NewRedactChunks(f)}
	h := a.Hasher(objects.TypeBlob, 1)
	var buf []byte
	for {
		chunk, err := cr.ReadChunk(buf[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return objects.OID{}, 0, fmt.Errorf("read %s: %w", path, err)
		}
		if cr.n > objects.MaxLooseObjectSize {
			return objects.OID{}, 0, fmt.Errorf("%s: more than %d bytes: %w", path, int64(objects.MaxLooseObjectSize), objects.ErrObjectTooLarge)
		}
		h.Write(chunk)
		buf = chunk
	}
	return objects.OIDFromHash(a, objects.TypeBlob, h), cr.n, nil
}

// countingChunks counts the bytes read and stops at cancellation, so a
// long stream honours the context. It passes ReadChunk through, so the
// store's writer still sees an objects.ChunkReader.
type countingChunks struct {
	ctx context.Context
	r   objects.ChunkReader
	n   int64
}

// Read reads from the underlying reader.
func (c *countingChunks) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Settle waits for the underlying reader's reading ahead.
func (c *countingChunks) Settle() { c.r.Settle() }

// ReadChunk appends the next chunk of the underlying reader to buf.
func (c *countingChunks) ReadChunk(buf []byte) ([]byte, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	out, err := c.r.ReadChunk(buf)
	c.n += int64(len(out) - len(buf))
	return out, err
}
