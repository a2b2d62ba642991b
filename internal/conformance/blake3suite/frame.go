package blake3suite

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"errors"
	"io"
)

// TINEPACK3 framing (SPEC §2.8): magic, SHA-256 of the inflated manifest,
// zlib stream.
const (
	frameMagic  = "TINEPACK3\x00"
	frameHeader = len(frameMagic) + sha256.Size
)

func isFrame(b []byte) bool { return len(b) >= frameHeader && bytes.HasPrefix(b, []byte(frameMagic)) }

// inflated is a frame's stream taken apart: the manifest, whether the
// stream ended (a truncated one did not) and the bytes after its end.
type inflated struct {
	manifest []byte
	complete bool
	trailing []byte
}

// inflate reads a frame's zlib stream; ok is false when it is not zlib at
// all, which leaves nothing to rewrite. The bytes.Reader is a ByteReader,
// so flate reads no further than the stream's end and the rest is what
// trails it.
func inflate(b []byte) (inflated, bool) {
	br := bytes.NewReader(b[frameHeader:])
	zr, err := zlib.NewReader(br)
	if err != nil {
		return inflated{}, false
	}
	m, err := io.ReadAll(zr)
	switch {
	case err == nil:
		rest := make([]byte, br.Len())
		_, _ = br.Read(rest)
		return inflated{manifest: m, complete: true, trailing: rest}, true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return inflated{manifest: m}, true
	}
	return inflated{}, false
}

// frame rewrites a frame's manifest. A frame whose manifest does not change
// is returned as it is. The header digest is re-computed when it matched
// the old manifest and kept when it did not (a checksum-mismatch vector
// stays one); a stream that was truncated loses its Adler-32 trailer again,
// and bytes that trailed the stream trail the new one.
func (r *rewriter) frame(b []byte) []byte {
	in, ok := inflate(b)
	if !ok {
		return b
	}
	m := r.bytes(in.manifest)
	if bytes.Equal(m, in.manifest) {
		return b
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression) // level 9 is valid
	_, _ = zw.Write(m)
	_ = zw.Close()
	stream := z.Bytes()
	if !in.complete {
		stream = stream[:len(stream)-4]
	}
	out := append([]byte(frameMagic), b[len(frameMagic):frameHeader]...)
	if old := sha256.Sum256(in.manifest); bytes.Equal(old[:], b[len(frameMagic):frameHeader]) {
		sum := sha256.Sum256(m)
		copy(out[len(frameMagic):], sum[:])
	}
	out = append(out, stream...)
	return append(out, in.trailing...)
}

// discover registers every envelope bytes carry: the bytes themselves, the
// entries of a manifest and, through a frame, its manifest's.
func (r *rewriter) discover(b []byte) {
	if isFrame(b) {
		if in, ok := inflate(b); ok {
			r.discover(in.manifest)
		}
		return
	}
	r.registerEnvelope(b)
	for _, m := range dataField.FindAllSubmatch(b, -1) {
		if raw, ok := lenientBase64(string(m[1])); ok {
			r.discover(raw)
		}
	}
}
