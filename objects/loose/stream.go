package loose

import (
	"bytes"
	"context"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// maxHeaderLine is the longest envelope header a reader accepts plus its LF
// (SPEC §1.2: a longer header is envelope.malformed).
const maxHeaderLine = objects.MaxHeaderBytes + 1

// PutBlobFrom stores the bytes of r as a blob (schema 1) in constant
// memory: the envelope is written to a temporary file in the blob type
// directory while it is hashed, then renamed under its oid. It returns the
// blob's oid. A blob whose stored size would exceed MaxLooseObjectSize is
// refused with ErrObjectTooLarge. If a verified copy is already present,
// nothing is written.
func (s *Store) PutBlobFrom(ctx context.Context, r io.Reader) (objects.OID, error) {
	typeDir := filepath.Join(s.dir, string(objects.TypeBlob))
	if err := s.checkDir(typeDir, true); err != nil {
		return objects.OID{}, fmt.Errorf("put blob: %w", err)
	}
	err := s.faults.fault(stepCreateTemp, typeDir)
	var f *os.File
	if err == nil {
		f, err = os.CreateTemp(typeDir, objects.TempPrefix+"stream-*")
	}
	if err != nil {
		// The oid is known only once every byte is hashed.
		return objects.OID{}, fmt.Errorf("put blob: %s: %w", stepCreateTemp, err)
	}
	tmp := f.Name()
	defer func() {
		if f != nil {
			f.Close()
		}
		if tmp != "" {
			os.Remove(tmp)
		}
	}()
	header := append(objects.AppendHeader(nil, objects.TypeBlob, 1), '\n')
	h := s.algo.Hasher(objects.TypeBlob, 1)
	if _, err := s.streamBody(ctx, r, f, tmp, h, header); err != nil {
		return objects.OID{}, err
	}
	id := objects.OIDFromHash(s.algo, objects.TypeBlob, h)
	_, fanDir, p := s.paths(id)
	if err := s.checkDir(fanDir, true); err != nil {
		return objects.OID{}, fmt.Errorf("object %s: %w", id, err)
	}
	if s.verifyBlob(ctx, id) {
		return id, nil
	}
	if err := f.Chmod(objects.StoredFilePerm); err != nil {
		return objects.OID{}, fmt.Errorf("object %s: %w", id, err)
	}
	err = s.faults.fault(stepSync, tmp)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	f = nil
	if err != nil {
		return objects.OID{}, fmt.Errorf("object %s: %s: %w", id, stepSync, err)
	}
	err = s.faults.fault(stepRename, p)
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		return objects.OID{}, fmt.Errorf("object %s: %s: %w", id, stepRename, err)
	}
	tmp = ""
	err = s.faults.fault(stepSyncDir, fanDir)
	if err == nil {
		err = fsutil.SyncDir(fanDir)
	}
	if err != nil {
		return id, fmt.Errorf("object %s: %s: %w", id, stepSyncDir, &fsutil.UnknownStateError{Path: p, Err: err})
	}
	return id, nil
}

// verifyBlob reports whether a complete, verified copy of blob id exists.
func (s *Store) verifyBlob(ctx context.Context, id objects.OID) bool {
	rc, _, err := s.OpenBlob(ctx, id)
	if err != nil {
		return false
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err == nil
}

// OpenBlob opens the body of blob id for streaming in constant memory and
// returns it with the body's size. The body is hashed as it is read: a
// mismatch is reported by Read in place of io.EOF (an error naming the
// object, reason envelope.oid-mismatch), so a consumer must not trust the
// data until Read has returned io.EOF.
func (s *Store) OpenBlob(ctx context.Context, id objects.OID) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if id.Type != objects.TypeBlob {
		return nil, 0, fmt.Errorf("object %s: not a blob", id)
	}
	f, size, err := s.openChecked(id)
	if err != nil {
		return nil, 0, err
	}
	first := make([]byte, min(size, maxHeaderLine))
	if _, err := io.ReadFull(f, first); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("object %s: read: %w", id, err)
	}
	lf := bytes.IndexByte(first, '\n')
	if lf < 0 {
		f.Close()
		return nil, 0, fmt.Errorf("object %s: %w", id, objects.Errorf(objects.ReasonEnvelopeMalformed, "no header line within %d bytes", maxHeaderLine))
	}
	// The header alone, with an empty body, is a complete envelope: decode
	// it to apply every header rule and learn the schema.
	hdr, err := objects.DecodeEnvelope(s.algo, first[:lf+1])
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("object %s: %w", id, err)
	}
	if hdr.Type != objects.TypeBlob {
		f.Close()
		return nil, 0, fmt.Errorf("object %s: %w", id, objects.Errorf(objects.ReasonEnvelopeOidMismatch, "stored object is a %s", hdr.Type))
	}
	h := s.algo.Hasher(objects.TypeBlob, hdr.Schema)
	rest := first[lf+1:]
	v := &verifyingReader{f: f, r: io.MultiReader(bytes.NewReader(rest), f), h: h, id: id, algo: s.algo}
	return v, size - int64(lf+1), nil
}

// verifyingReader hashes a blob body as it is read and turns a digest
// mismatch at the end into an error.
type verifyingReader struct {
	f    *os.File
	r    io.Reader
	h    hash.Hash
	id   objects.OID
	algo objects.Algo
	err  error
}

// Read reads body bytes; at the end it returns io.EOF only if the body
// hashed to the blob's oid.
func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	if err == io.EOF {
		if got := objects.OIDFromHash(v.algo, objects.TypeBlob, v.h); got != v.id {
			err = fmt.Errorf("object %s: %w", v.id, objects.Errorf(objects.ReasonEnvelopeOidMismatch, "stored bytes hash to %s", got))
		}
	}
	if err != nil {
		v.err = err
	}
	return n, err
}

// Close closes the underlying file.
func (v *verifyingReader) Close() error { return v.f.Close() }
