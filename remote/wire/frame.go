package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/tinehq/tine/objects"
)

// tine's binary frame: what a push or fetch between tine peers carries in
// place of a TINEPACK3 frame when both speak it (the server advertises
// TineCaps.Frame; the client sends HeaderFrame). TINEPACK3 spells every
// object as base64 inside canonical JSON inside zlib, and each side spends
// about half its CPU writing or reading that; this frame carries the
// stored envelopes as they are:
//
//	off 0   10 bytes  "TINEFRAME\x01"
//	off 10  32 bytes  SHA-256 of the body (raw digest)
//	off 42  1 byte    the body's codec: 1 zstd, 0 none
//	off 43  n bytes   the body, in that codec
//
// The body is
//
//	uvarint objects, uvarint shallow
//	shallow × (1 byte type code, 32 bytes digest)
//	objects × (uvarint length, the stored envelope)
//
// The objects' ids are not sent: the reader derives each from its bytes,
// the check TINEPACK3's reader makes against the id it carries. Ids use the
// receiver's hash profile; the frame id is "sha256:" + hex of bytes 10..42,
// as for TINEPACK3, so a receipt names it the same way. A frame between
// two processes on one host (a client of a loopback URL) is not
// compressed: its bytes never leave the machine, and compressing and
// inflating them was a tenth of each side's CPU time. Every bound of
// TINEPACK3 holds: MaxPackBytes per frame and MaxPackBodyBytes per body,
// the counts the extension grants (PackLimits).
const (
	// FrameMagic is the ten bytes every binary frame begins with; its
	// last byte is the frame's version.
	FrameMagic = "TINEFRAME\x01"
	// FrameVersion is the binary frame version this tine reads and
	// writes: TineCaps.Frame's and HeaderFrame's value.
	FrameVersion = 1
	// HeaderFrame is the request header by which a client asks for (fetch)
	// or announces (upload) binary frames.
	HeaderFrame = "Tine-Frame"
	// FrameContentType is the content type of a binary frame reply.
	FrameContentType = "application/vnd.tine.frame"
	// HeaderFrameCodec is the request header by which a fetch asks for a
	// frame body in a codec other than zstd: FrameCodecNone.
	HeaderFrameCodec = "Tine-Frame-Codec"
	// FrameCodecNone is HeaderFrameCodec's one value: an uncompressed
	// body.
	FrameCodecNone = "none"
	// frameHeaderSize is the magic plus the body digest; the codec byte
	// follows.
	frameHeaderSize = len(FrameMagic) + sha256.Size
)

// Body codecs, the byte at frameHeaderSize.
const (
	codecNone byte = 0
	codecZstd byte = 1
)

// ErrBadFrame reports a binary frame that is corrupt, truncated, over a
// bound or inconsistent; nothing from it may be stored.
var ErrBadFrame = errors.New("invalid tine frame")

// FrameHeaderValue is HeaderFrame's value.
const FrameHeaderValue = "1"

// typeCodes and codeTypes map object types to their one-byte codes.
var (
	typeCodes = map[objects.Type]byte{objects.TypeBlob: 1, objects.TypeEvent: 2, objects.TypeRun: 3,
		objects.TypeAttestation: 4, objects.TypeAnnotation: 5}
	codeTypes = [...]objects.Type{1: objects.TypeBlob, 2: objects.TypeEvent, 3: objects.TypeRun,
		4: objects.TypeAttestation, 5: objects.TypeAnnotation}
)

// IsFrame reports whether b begins with FrameMagic.
func IsFrame(b []byte) bool {
	return len(b) >= len(FrameMagic) && string(b[:len(FrameMagic)]) == FrameMagic
}

// FrameID returns the frame id of a frame IsFrame accepts (the same form
// as a TINEPACK3 pack id), "" for anything shorter than a header.
func FrameID(frame []byte) string {
	if len(frame) < frameHeaderSize {
		return ""
	}
	return objects.PackIDPrefix + hex.EncodeToString(frame[len(FrameMagic):frameHeaderSize])
}

// WriteFrame builds the binary frame of objs, in the order given, with
// boundary shallow, within the counts of lim, its body zstd-compressed
// when compress, and returns it with its id.
// It refuses objects of mixed hash profiles, duplicates, a boundary entry
// that is also sent and anything over a bound; that shallow is exactly the
// objects' external links is the caller's to ensure (the reader refuses
// anything else when it installs).
func WriteFrame(objs []*objects.Object, shallow []objects.OID, lim objects.PackLimits, compress bool) ([]byte, string, error) {
	if len(objs) > lim.Objects || len(shallow) > lim.Shallow {
		return nil, "", fmt.Errorf("write frame: %w: %d objects and %d shallow ids, over %d and %d", ErrBadFrame, len(objs), len(shallow), lim.Objects, lim.Shallow)
	}
	seen := make(map[objects.OID]bool, len(objs)+len(shallow))
	var algo objects.Algo
	size := 2 * binary.MaxVarintLen64
	lens, n, err := objectsSize(objs, &algo, seen)
	if err != nil {
		return nil, "", err
	}
	size += n
	n, err = shallowSize(shallow, &algo, seen)
	if err != nil {
		return nil, "", err
	}
	size += n
	if size > objects.MaxPackBodyBytes {
		return nil, "", fmt.Errorf("write frame: %w: a body of up to %d bytes, over %d", ErrBadFrame, size, objects.MaxPackBodyBytes)
	}
	buf, start := frameBuffer(size, compress)
	body := buf[start:]
	body = binary.AppendUvarint(body, uint64(len(objs)))
	body = binary.AppendUvarint(body, uint64(len(shallow)))
	body = appendShallow(body, shallow)
	body = appendObjects(body, objs, lens)
	return sealFrame(FrameMagic, buf[:start+len(body)], start, compress)
}

// objectsSize checks objs' ids with frameID and returns the length of
// each one's stored envelope and the most the objects take in a body.
func objectsSize(objs []*objects.Object, algo *objects.Algo, seen map[objects.OID]bool) ([]int, int, error) {
	var hb [objects.MaxHeaderBytes]byte
	lens := make([]int, len(objs))
	size := 0
	for i, o := range objs {
		if err := frameID(o.ID, algo, seen); err != nil {
			return nil, 0, err
		}
		lens[i] = len(objects.AppendHeader(hb[:0], o.Type, o.Schema)) + 1 + len(o.Body)
		size += binary.MaxVarintLen64 + lens[i]
	}
	return lens, size, nil
}

// shallowSize checks the boundary's ids with frameID and returns the
// bytes its entries take in a body.
func shallowSize(shallow []objects.OID, algo *objects.Algo, seen map[objects.OID]bool) (int, error) {
	size := 0
	for _, id := range shallow {
		if err := frameID(id, algo, seen); err != nil {
			return 0, err
		}
		size += 1 + len(id.Digest)
	}
	return size, nil
}

// frameBuffer allocates a frame's buffer for a body of up to size bytes
// and returns where the body starts. An uncompressed body is built in
// place after the header, so the frame is allocated, faulted in and
// filled once (14 MiB for a 10,000-event run).
func frameBuffer(size int, compress bool) ([]byte, int) {
	start := 0
	if !compress {
		start = frameHeaderSize + 1
	}
	return make([]byte, start, start+size), start
}

// appendShallow appends the boundary's entries (type code, digest).
func appendShallow(body []byte, shallow []objects.OID) []byte {
	for _, id := range shallow {
		body = append(body, typeCodes[id.Type])
		body = append(body, id.Digest[:]...)
	}
	return body
}

// appendObjects appends each object's length (lens, from objectsSize)
// and stored envelope.
func appendObjects(body []byte, objs []*objects.Object, lens []int) []byte {
	for i, o := range objs {
		body = binary.AppendUvarint(body, uint64(lens[i]))
		body = o.AppendStored(body)
	}
	return body
}

// sealFrame finishes a frame whose body is buf[start:] (start is 0 or the
// header's size, room left for it): it compresses the body when compress,
// writes magic, the body's digest and the codec byte, and checks the
// frame's size.
func sealFrame(magic string, buf []byte, start int, compress bool) ([]byte, string, error) {
	body := buf[start:]
	sum := sha256.Sum256(body)
	var frame []byte
	if compress {
		frame = make([]byte, frameHeaderSize+1, frameHeaderSize+1+len(body)/2+64)
		frame[frameHeaderSize] = codecZstd
		enc, err := frameEncoder()
		if err != nil {
			return nil, "", fmt.Errorf("write frame: %w", err)
		}
		frame = enc.EncodeAll(body, frame)
		frameEncoders.Put(enc)
	} else {
		frame = buf
		frame[frameHeaderSize] = codecNone
	}
	copy(frame, magic)
	copy(frame[len(magic):], sum[:])
	if len(frame) > objects.MaxPackBytes {
		return nil, "", fmt.Errorf("write frame: %w: %d bytes, over %d", ErrBadFrame, len(frame), objects.MaxPackBytes)
	}
	return frame, FrameID(frame), nil
}

// frameID checks one id of a frame being written: one hash profile, a
// known type, no repeat.
func frameID(id objects.OID, algo *objects.Algo, seen map[objects.OID]bool) error {
	if *algo == "" {
		*algo = id.Algo
	}
	if id.Algo != *algo {
		return fmt.Errorf("write frame: %w: %s beside %s ids", objects.ErrPackAlgoMixed, id, *algo)
	}
	if typeCodes[id.Type] == 0 {
		return fmt.Errorf("write frame: %w: %s has no type", ErrBadFrame, id)
	}
	if seen[id] {
		return fmt.Errorf("write frame: %w: %s twice", ErrBadFrame, id)
	}
	seen[id] = true
	return nil
}

// frameEncoders recycle zstd encoders (each holds its tables, hundreds of
// KiB).
var frameEncoders sync.Pool

// frameEncoder returns an idle encoder or a new one at the fastest level:
// the frame crosses a wire once, and a transfer between peers on one
// network is bound by the CPU, not the bytes. The body's digest covers
// what the zstd checksum would, so the frame carries none.
func frameEncoder() (*zstd.Encoder, error) {
	if e, ok := frameEncoders.Get().(*zstd.Encoder); ok {
		return e, nil
	}
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderCRC(false))
}
