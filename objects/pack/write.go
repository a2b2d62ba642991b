package pack

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/zstd"
	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// Options tunes a Writer.
type Options struct {
	// BlockSize is the uncompressed size blocks are filled to; 0 means
	// DefaultBlockSize and a negative value puts every object in
	// a frame of its own.
	BlockSize int
	// DeltaDepth is the longest chain of deltas the writer builds for run
	// objects (delta.go); 0 means DefaultDeltaDepth and a negative value
	// stores every object whole.
	DeltaDepth int
}

// Writer streams objects into a new storage pack in objects/pack/. The
// pack becomes visible only when Commit returns; Abort (or a failed Commit)
// leaves nothing behind but, after a crash, a temporary file. A Writer
// is not safe for concurrent use.
type Writer struct {
	dir       string
	algo      objects.Algo
	blockSize int
	f         *os.File
	tmp       string
	sink      spSink
	enc       *zstd.Encoder
	block     []byte    // pending decoded block
	pending   []spEntry // entries of the pending block
	entries   []spEntry
	seen      map[objects.OID]struct{}
	err       error // sticky: a failed write poisons the pack
	// Run deltas (write_delta.go): the chain bound, the runs recently
	// added (candidate bases) and the delta blocks waiting for the
	// pending block to be written first.
	deltaDepth int
	recent     []spRecent
	deltas     []spEntryBlock
	// copyBuf is the buffer a merge copies blocks through (copyBlock),
	// one per Writer rather than one per block.
	copyBuf []byte
}

// spEntry is one index entry under construction or decoded.
type spEntry struct {
	key                      spKey
	off                      uint64
	size, start, length, crc uint32
}

// spSink writes pack bytes, tracking their count, their SHA-256 (the
// trailer) and the CRC-32C of the current block.
type spSink struct {
	bw  *bufio.Writer
	sum hash.Hash
	crc uint32
	n   int64
}

// Write implements io.Writer.
func (s *spSink) Write(p []byte) (int, error) {
	n, err := s.bw.Write(p)
	s.sum.Write(p[:n])
	s.crc = crc32.Update(s.crc, crc32c, p[:n])
	s.n += int64(n)
	return n, err
}

// NewWriter starts a pack of hash profile a in dir (objects/pack),
// creating dir if needed.
func NewWriter(dir string, a objects.Algo, opt Options) (*Writer, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("new storage pack: %w: %q", objects.ErrUnknownAlgo, a)
	}
	if err := fsutil.MkdirAllSync(dir, objects.StoreDirPerm); err != nil {
		return nil, fmt.Errorf("new storage pack: %w", err)
	}
	enc, err := getEncoder()
	if err != nil {
		return nil, fmt.Errorf("new storage pack: %w", err)
	}
	f, err := os.CreateTemp(dir, objects.TempPrefix+"pack-*")
	if err != nil {
		putEncoder(enc)
		return nil, fmt.Errorf("new storage pack: %w", err)
	}
	w := &Writer{dir: dir, algo: a, blockSize: opt.BlockSize, f: f, tmp: f.Name(), enc: enc,
		seen: make(map[objects.OID]struct{})}
	if w.blockSize == 0 {
		w.blockSize = DefaultBlockSize
	}
	w.deltaDepth = opt.DeltaDepth
	if w.deltaDepth == 0 {
		w.deltaDepth = DefaultDeltaDepth
	}
	bp := getBlockBuf()
	w.block = *bp
	w.sink = spSink{bw: bufio.NewWriterSize(f, 256<<10), sum: sha256.New()}
	if _, err := w.sink.Write(appendSPHeader(nil, spPackMagic, a)); err != nil {
		w.Abort()
		return nil, fmt.Errorf("new storage pack: %w", err)
	}
	return w, nil
}

// Len returns the number of distinct objects added so far.
func (w *Writer) Len() int { return len(w.seen) }

// Add appends o to the pack. An object already added is skipped.
func (w *Writer) Add(o *objects.Object) error {
	if err := objects.CheckPut(w.algo, o); err != nil {
		return err
	}
	var hb [objects.MaxHeaderBytes + 1]byte
	head := append(objects.AppendHeader(hb[:0], o.Type, o.Schema), '\n')
	return w.add(o.ID, head, o.Body)
}

// add appends the envelope head+body under id.
func (w *Writer) add(id objects.OID, head, body []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return fmt.Errorf("object %s: storage pack already committed or aborted", id)
	}
	if _, dup := w.seen[id]; dup {
		return nil
	}
	if len(w.seen) >= MaxObjects {
		return fmt.Errorf("object %s: storage pack full (%d objects)", id, MaxObjects)
	}
	total := len(head) + len(body)
	if int64(total) > objects.MaxLooseObjectSize {
		return fmt.Errorf("object %s: %d bytes, the limit is %d: %w", id, total, int64(objects.MaxLooseObjectSize), objects.ErrObjectTooLarge)
	}
	w.seen[id] = struct{}{}
	e := spEntry{key: spKeyOf(id), length: uint32(total)}
	if id.Type == objects.TypeRun && w.deltaDepth > 0 && total <= spMaxDeltaTarget {
		if w.addRun(e, head, body) {
			return nil
		}
	}
	if total > LargeObject {
		w.err = w.flushBlock()
		if w.err == nil {
			w.err = w.writeLarge(e, head, body)
		}
		return w.err
	}
	if len(w.block) > 0 && len(w.block)+total > w.blockSize {
		if w.err = w.flushBlock(); w.err != nil {
			return w.err
		}
	}
	e.start = uint32(len(w.block))
	w.block = append(append(w.block, head...), body...)
	w.pending = append(w.pending, e)
	if len(w.block) >= w.blockSize {
		w.err = w.flushBlock()
	}
	return w.err
}

// flushBlock compresses and writes the pending block, if any. A block that
// zstd cannot shrink is stored as is.
func (w *Writer) flushBlock() error {
	if len(w.block) == 0 {
		return w.writeDeltas()
	}
	bp := getBlockBuf()
	defer putBlockBuf(bp)
	payload := w.enc.EncodeAll(w.block, (*bp)[:0])
	*bp = payload
	kind := byte(spKindZstd)
	if len(payload) >= len(w.block) {
		kind, payload = spKindStored, w.block
	}
	off := w.sink.n
	w.sink.crc = 0
	var hdr [spBlockHeader]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(w.block)))
	w.sink.Write(hdr[:])
	if _, err := w.sink.Write(payload); err != nil {
		return fmt.Errorf("write storage pack: %w", err)
	}
	for _, e := range w.pending {
		e.off, e.size, e.crc = uint64(off), uint32(w.sink.n-off), w.sink.crc
		w.entries = append(w.entries, e)
	}
	w.pending, w.block = w.pending[:0], w.block[:0]
	return w.writeDeltas()
}

// writeLarge streams one large envelope through the encoder into a block of
// its own, so no compressed copy of it is ever held in memory.
func (w *Writer) writeLarge(e spEntry, head, body []byte) error {
	off := w.sink.n
	w.sink.crc = 0
	var hdr [spBlockHeader]byte
	hdr[0] = spKindZstd
	binary.BigEndian.PutUint32(hdr[1:], e.length)
	w.sink.Write(hdr[:])
	w.enc.Reset(&w.sink)
	_, err := w.enc.Write(head)
	if err == nil {
		_, err = w.enc.Write(body)
	}
	if cerr := w.enc.Close(); err == nil {
		err = cerr
	}
	w.enc.Reset(nil) // drop the reference to the file before pooling
	if err != nil {
		return fmt.Errorf("write storage pack: %w", err)
	}
	if w.sink.n-off > 1<<32-1 {
		return fmt.Errorf("write storage pack: block of %d bytes is too large", w.sink.n-off)
	}
	e.off, e.size, e.crc = uint64(off), uint32(w.sink.n-off), w.sink.crc
	w.entries = append(w.entries, e)
	return nil
}

// Commit finishes the pack and makes it visible: it writes the trailer and
// the index, fsyncs both files, renames the pack, fsyncs the directory,
// renames the index (the two renames under the directory lock, lock.go)
// and fsyncs the directory again. It returns the pack's
// name ("pack-" and 64 hex digits), or "" when no object was added, in which
// case nothing is written. A *fsutil.UnknownStateError reports a failure
// after the index became visible.
func (w *Writer) Commit() (name string, err error) {
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	if w.err != nil {
		return "", w.err
	}
	if w.f == nil {
		return "", fmt.Errorf("storage pack already committed or aborted")
	}
	if err := w.flushBlock(); err != nil {
		return "", err
	}
	if len(w.entries) == 0 {
		return "", w.Abort()
	}
	sum := w.sink.sum.Sum(nil)
	if _, err := w.sink.bw.Write(sum); err != nil {
		return "", fmt.Errorf("write storage pack: %w", err)
	}
	if err := w.sink.bw.Flush(); err != nil {
		return "", fmt.Errorf("write storage pack: %w", err)
	}
	slices.SortFunc(w.entries, func(a, b spEntry) int { return bytes.Compare(a.key[:], b.key[:]) })
	name = "pack-" + hex.EncodeToString(sum)
	idx, err := os.CreateTemp(w.dir, objects.TempPrefix+"idx-*")
	if err != nil {
		return "", fmt.Errorf("write storage pack index: %w", err)
	}
	idxTmp := idx.Name()
	defer func() {
		if idx != nil {
			idx.Close()
		}
		if idxTmp != "" {
			os.Remove(idxTmp)
		}
	}()
	if _, err := idx.Write(encodeSPIndex(w.algo, w.entries, sum)); err != nil {
		return "", fmt.Errorf("write storage pack index: %w", err)
	}
	// The two fsyncs run together: concurrent fsyncs share a journal commit.
	files := [2]*os.File{w.f, idx}
	if err := syncBoth(files); err != nil {
		return "", fmt.Errorf("sync storage pack: %w", err)
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			return "", fmt.Errorf("close storage pack: %w", err)
		}
	}
	w.f, idx = nil, nil
	if err := w.install(name, idxTmp); err != nil {
		return "", err
	}
	idxTmp = ""
	w.release()
	if err := fsutil.SyncDir(w.dir); err != nil {
		return name, &fsutil.UnknownStateError{Path: filepath.Join(w.dir, name+".idx"), Err: err}
	}
	return name, nil
}

// install renames the pack file, then the index idxTmp, into place as
// name, fsyncing the directory between the two so the pack's name is
// durable before the index names it. It holds the directory lock shared
// (lock.go), so a removal of a pack of the same name never runs between
// the renames.
func (w *Writer) install(name, idxTmp string) error {
	release, err := lockDir(w.dir, false)
	if err != nil {
		return fmt.Errorf("install storage pack %s: %w", name, err)
	}
	defer release()
	base := filepath.Join(w.dir, name)
	if err := os.Rename(w.tmp, base+".pack"); err != nil {
		return fmt.Errorf("install storage pack %s: %w", name, err)
	}
	w.tmp = ""
	if err := fsutil.SyncDir(w.dir); err != nil {
		return fmt.Errorf("install storage pack %s: %w", name, err)
	}
	if commitWindowHook != nil {
		commitWindowHook(name)
	}
	if err := os.Rename(idxTmp, base+".idx"); err != nil {
		return fmt.Errorf("install storage pack %s: %w", name, err)
	}
	return nil
}

// Abort discards the pack. It is safe to call after Commit.
func (w *Writer) Abort() error {
	var err error
	if w.f != nil {
		err = w.f.Close()
		w.f = nil
	}
	if w.tmp != "" {
		if rerr := os.Remove(w.tmp); err == nil {
			err = rerr
		}
		w.tmp = ""
	}
	w.release()
	if w.err == nil {
		w.err = fmt.Errorf("storage pack already committed or aborted")
	}
	return err
}

// release returns the pooled encoder and buffer.
func (w *Writer) release() {
	w.recent, w.deltas = nil, nil
	if w.enc != nil {
		putEncoder(w.enc)
		w.enc = nil
	}
	if w.block != nil {
		b := w.block[:0]
		putBlockBuf(&b)
		w.block = nil
	}
}

// syncBoth makes both files read-only and fsyncs them concurrently.
func syncBoth(files [2]*os.File) error {
	var errs [2]error
	done := make(chan struct{})
	sync := func(i int) {
		if errs[i] = files[i].Chmod(objects.StoredFilePerm); errs[i] == nil {
			errs[i] = files[i].Sync()
		}
	}
	go func() { sync(1); close(done) }()
	sync(0)
	<-done
	return errors.Join(errs[0], errs[1])
}
