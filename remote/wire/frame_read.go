package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/tinehq/tine/objects"
)

// ReadFrame verifies a binary frame and returns its objects (in frame
// order, each decoded with hash profile a, its id derived from its bytes)
// and shallow ids, as an objects.PackFrame whose ID is the frame id. It
// refuses, with an error wrapping ErrBadFrame: a frame over
// objects.MaxPackBytes (checked first), a wrong magic, an unknown body
// codec, a zstd stream that is
// corrupt, truncated, followed by other bytes or inflating past
// objects.MaxPackBodyBytes, a body not hashing to the header's digest,
// counts over lim, an entry running past the body or bytes after the last
// one, an unknown type code, an id repeated in either list or in both, and
// an envelope that does not decode (its objects.FormatError is wrapped
// too). Links are not checked here: objects.InstallPackFrame and the
// transports' sinks check them against the store before storing anything.
func ReadFrame(frame []byte, a objects.Algo, lim objects.PackLimits) (*objects.PackFrame, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("read frame: %w: %q", objects.ErrUnknownAlgo, a)
	}
	if !IsFrame(frame) && len(frame) <= objects.MaxPackBytes {
		return nil, fmt.Errorf("%w: no %q magic", ErrBadFrame, FrameMagic[:len(FrameMagic)-1])
	}
	id, body, err := frameBody(frame)
	if err != nil {
		return nil, err
	}
	pf, err := parseFrameBody(body, a, lim)
	if err != nil {
		return nil, fmt.Errorf("frame %s: %w", id, err)
	}
	pf.ID = id
	return pf, nil
}

// frameBody checks a frame of either version up to its body: its size
// (objects.MaxPackBytes, first), its header, its codec and the body's
// digest; it returns the frame id and the body (inflated when the frame
// is compressed).
func frameBody(frame []byte) (string, []byte, error) {
	if len(frame) > objects.MaxPackBytes {
		return "", nil, fmt.Errorf("%w: %d bytes, over %d", ErrBadFrame, len(frame), objects.MaxPackBytes)
	}
	if len(frame) <= frameHeaderSize || !IsFrame(frame) && !IsFrameBlocks(frame) {
		return "", nil, fmt.Errorf("%w: no %q magic", ErrBadFrame, FrameMagic[:len(FrameMagic)-1])
	}
	id := FrameID(frame)
	var body []byte
	switch codec, rest := frame[frameHeaderSize], frame[frameHeaderSize+1:]; codec {
	case codecNone:
		body = rest // shorter than the frame, so within objects.MaxPackBodyBytes
	case codecZstd:
		var err error
		if body, err = inflateFrame(rest); err != nil {
			return "", nil, fmt.Errorf("frame %s: %w", id, err)
		}
	default:
		return "", nil, fmt.Errorf("frame %s: %w: unknown body codec %d", id, ErrBadFrame, codec)
	}
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], frame[len(FrameMagic):frameHeaderSize]) {
		return "", nil, fmt.Errorf("frame %s: %w: the body hashes to sha256:%x", id, ErrBadFrame, sum)
	}
	return id, body, nil
}

// parseFrameBody decodes a verified body (see ReadFrame).
func parseFrameBody(body []byte, a objects.Algo, lim objects.PackLimits) (*objects.PackFrame, error) {
	r := frameReader{b: body}
	nObj, nShallow := r.uvarint(), r.uvarint()
	if r.err != nil {
		return nil, r.err
	}
	if nObj > uint64(lim.Objects) || nShallow > uint64(lim.Shallow) {
		return nil, fmt.Errorf("%w: %d objects and %d shallow ids, over %d and %d", ErrBadFrame, nObj, nShallow, lim.Objects, lim.Shallow)
	}
	// Each shallow entry is 33 bytes and each object at least 2, so counts
	// the body cannot hold are refused before anything is allocated.
	if nShallow*33+nObj*2 > uint64(len(r.b)) {
		return nil, fmt.Errorf("%w: %d objects and %d shallow ids do not fit %d bytes", ErrBadFrame, nObj, nShallow, len(r.b))
	}
	pf := &objects.PackFrame{Objects: make([]*objects.Object, 0, nObj)}
	seen := make(map[objects.OID]bool, nObj+nShallow)
	var err error
	if pf.Shallow, err = r.shallow(nShallow, a, seen); err != nil {
		return nil, err
	}
	// The entries are cut first, then decoded (and so hashed) on every
	// CPU, then checked in frame order: the error reported is the one a
	// reader going entry by entry meets first.
	entries := make([][]byte, 0, nObj)
	for i := uint64(0); i < nObj && r.err == nil; i++ {
		stored := r.next(r.uvarint())
		if r.err == nil {
			entries = append(entries, stored)
		}
	}
	objs, errs := decodeEntries(a, entries)
	for i, o := range objs {
		if errs[i] != nil {
			return nil, fmt.Errorf("%w: objects[%d]: %w", ErrBadFrame, i, errs[i])
		}
		if seen[o.ID] {
			return nil, fmt.Errorf("%w: objects[%d], %s, is sent twice or also named shallow", ErrBadFrame, i, o.ID)
		}
		seen[o.ID] = true
		pf.Objects = append(pf.Objects, o)
	}
	if r.err != nil {
		return nil, fmt.Errorf("objects[%d]: %w", len(entries), r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes follow the last object", ErrBadFrame, len(r.b))
	}
	return pf, nil
}

// parallelEntries is the fewest entries decoded on more than one CPU.
const parallelEntries = 512

// decodeEntries decodes each stored envelope with hash profile a, the
// entries split in runs across the CPUs, and returns the objects and each
// entry's error.
func decodeEntries(a objects.Algo, entries [][]byte) ([]*objects.Object, []error) {
	objs := make([]*objects.Object, len(entries))
	errs := make([]error, len(entries))
	parallel(len(entries), len(entries), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			objs[i], errs[i] = objects.DecodeEnvelope(a, entries[i])
		}
	})
	return objs, errs
}

// parallel calls fn over [0, n) split in runs across the CPUs (at most 8),
// one run per parallelEntries of work (the objects the items hold), and
// returns when every run is done.
func parallel(n, work int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), 8, work/parallelEntries, n)
	if workers < 2 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		wg.Go(func() { fn(lo, min(lo+per, n)) })
	}
	wg.Wait()
}

// shallow reads n shallow entries (the caller checked they fit the body),
// refusing an unknown type code and an id already in seen.
func (r *frameReader) shallow(n uint64, a objects.Algo, seen map[objects.OID]bool) ([]objects.OID, error) {
	out := make([]objects.OID, 0, n)
	for i := uint64(0); i < n; i++ {
		entry := r.next(33)
		if r.err != nil {
			return nil, r.err
		}
		if int(entry[0]) >= len(codeTypes) || codeTypes[entry[0]] == "" {
			return nil, fmt.Errorf("%w: shallow[%d] has type code %d", ErrBadFrame, i, entry[0])
		}
		id := objects.OID{Type: codeTypes[entry[0]], Algo: a}
		copy(id.Digest[:], entry[1:])
		if seen[id] {
			return nil, fmt.Errorf("%w: shallow[%d] repeats %s", ErrBadFrame, i, id)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// frameReader consumes a body; the first failure sticks in err.
type frameReader struct {
	b   []byte
	err error
}

// uvarint reads one uvarint.
func (r *frameReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%w: a count is truncated or overlong", ErrBadFrame)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// next returns the next n bytes (aliasing the body).
func (r *frameReader) next(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: an entry of %d bytes runs past the body's end (%d left)", ErrBadFrame, n, len(r.b))
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// frameDecoders recycle zstd decoders.
var frameDecoders sync.Pool

// inflateFrame decodes the zstd stream of a frame into at most
// objects.MaxPackBodyBytes: the decoder refuses a frame declaring or
// producing more, so memory follows the bound, not what a hostile frame
// claims. Bytes after the stream that are not another zstd frame are
// refused.
func inflateFrame(stream []byte) ([]byte, error) {
	d, ok := frameDecoders.Get().(*zstd.Decoder)
	if !ok {
		var err error
		d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(objects.MaxPackBodyBytes))
		if err != nil {
			return nil, fmt.Errorf("read frame: %w", err)
		}
	}
	defer frameDecoders.Put(d)
	if len(stream) == 0 {
		return nil, fmt.Errorf("%w: no body", ErrBadFrame)
	}
	// The size the writer declared sizes the buffer, so it is checked
	// before anything is allocated: against the bound, and against what
	// the stream's own bytes can inflate to (a few bytes declaring 256 MiB
	// are refused, not given 256 MiB first). The decoder still stops at
	// the bound whatever a frame declared.
	var h zstd.Header
	var dst []byte
	if h.Decode(stream) == nil && h.HasFCS {
		if h.FrameContentSize > objects.MaxPackBodyBytes {
			return nil, fmt.Errorf("%w: the zstd body declares %d bytes, over %d", ErrBadFrame, h.FrameContentSize, objects.MaxPackBodyBytes)
		}
		if h.FrameContentSize > zstdMaxDecoded(len(stream)) {
			return nil, fmt.Errorf("%w: the zstd body declares %d bytes, more than its %d bytes can inflate to", ErrBadFrame, h.FrameContentSize, len(stream))
		}
		dst = make([]byte, 0, h.FrameContentSize)
	}
	body, err := d.DecodeAll(stream, dst)
	if err != nil {
		return nil, fmt.Errorf("%w: zstd body: %w", ErrBadFrame, err)
	}
	if len(body) > objects.MaxPackBodyBytes {
		return nil, fmt.Errorf("%w: the body inflates past %d bytes", ErrBadFrame, objects.MaxPackBodyBytes)
	}
	return body, nil
}

// zstdMaxDecoded bounds what n bytes of zstd frames can inflate to: a
// block that yields bytes takes at least 4 (a 3-byte header and the byte
// an RLE block repeats) and yields at most 128 KiB (RFC 8878 §3.1.1.2.4,
// Block_Maximum_Size); frame headers only add bytes.
func zstdMaxDecoded(n int) uint64 { return (uint64(n)/4 + 1) << 17 }
