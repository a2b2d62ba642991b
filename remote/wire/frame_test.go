package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tinehq/tine/objects"
)

// frameObjects returns n distinct blobs of profile a.
func frameObjects(a objects.Algo, n int) []*objects.Object {
	out := make([]*objects.Object, n)
	for i := range out {
		out[i] = objects.NewBlob(a, []byte(fmt.Sprintf("blob %d of a frame test", i)))
	}
	return out
}

// sealBody builds a zstd frame around body as WriteFrame does, so tests
// can hand the reader bodies no writer produces.
func sealBody(t *testing.T, body []byte) []byte {
	t.Helper()
	sum := sha256.Sum256(body)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(body, append(append([]byte(FrameMagic), sum[:]...), codecZstd))
}

// sealRaw builds an uncompressed frame around body.
func sealRaw(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append(append(append([]byte(FrameMagic), sum[:]...), codecNone), body...)
}

func TestFrameRoundTrip(t *testing.T) {
	for _, c := range []struct {
		a        objects.Algo
		compress bool
	}{{objects.SHA256, true}, {objects.BLAKE3, true}, {objects.SHA256, false}, {objects.BLAKE3, false}} {
		a := c.a
		objs := frameObjects(a, 50)
		shallow := []objects.OID{objects.NewBlob(a, []byte("elsewhere")).ID, a.Derive(objects.TypeEvent, 1, []byte("{}"))}
		frame, id, err := WriteFrame(objs, shallow, objects.DefaultPackLimits, c.compress)
		if err != nil {
			t.Fatal(err)
		}
		if codec := frame[frameHeaderSize]; (codec == codecZstd) != c.compress {
			t.Fatalf("%s: compress %v wrote codec %d", a, c.compress, codec)
		}
		if !IsFrame(frame) || id != FrameID(frame) {
			t.Fatalf("%s: frame id %s, header says %s", a, id, FrameID(frame))
		}
		pf, err := ReadFrame(frame, a, objects.DefaultPackLimits)
		if err != nil {
			t.Fatal(err)
		}
		if pf.ID != id || len(pf.Objects) != len(objs) || len(pf.Shallow) != 2 || pf.Shallow[1] != shallow[1] {
			t.Fatalf("%s: read back %s with %d objects and shallow %v", a, pf.ID, len(pf.Objects), pf.Shallow)
		}
		for i, o := range pf.Objects {
			if o.ID != objs[i].ID || !bytes.Equal(o.Body, objs[i].Body) {
				t.Fatalf("%s: objects[%d] is %s, want %s", a, i, o.ID, objs[i].ID)
			}
		}
	}
}

// TestFrameRefusals: every damaged, truncated, oversized or inconsistent
// frame is refused with ErrBadFrame.
func TestFrameRefusals(t *testing.T) {
	a := objects.SHA256
	objs := frameObjects(a, 20)
	good, _, err := WriteFrame(objs, nil, objects.DefaultPackLimits, true)
	if err != nil {
		t.Fatal(err)
	}
	raw, _, err := WriteFrame(objs, nil, objects.DefaultPackLimits, false)
	if err != nil {
		t.Fatal(err)
	}
	badCodec := bytes.Clone(raw)
	badCodec[frameHeaderSize] = 7
	flipped := bytes.Clone(good)
	flipped[len(flipped)-5] ^= 0x40
	badDigest := bytes.Clone(good)
	badDigest[len(FrameMagic)] ^= 1
	stored := objs[0].Stored()
	entry := binary.AppendUvarint(nil, uint64(len(stored)))
	entry = append(entry, stored...)
	body := func(nObj, nShallow uint64, rest ...[]byte) []byte {
		b := binary.AppendUvarint(nil, nObj)
		b = binary.AppendUvarint(b, nShallow)
		return append(b, bytes.Join(rest, nil)...)
	}
	shallowEntry := append([]byte{1}, objs[0].ID.Digest[:]...)
	cases := map[string][]byte{
		"empty":              nil,
		"no magic":           append([]byte("TINEPACK3\x00"), good[10:]...),
		"header only":        good[:frameHeaderSize],
		"truncated":          good[:len(good)-7],
		"trailing bytes":     append(bytes.Clone(good), "junk"...),
		"corrupt stream":     flipped,
		"digest mismatch":    badDigest,
		"too many objects":   sealBody(t, body(objects.MaxPackObjects+1, 0)),
		"too many shallow":   sealBody(t, body(0, objects.MaxPackObjects+1)),
		"counts past body":   sealBody(t, body(1000, 0, entry)),
		"entry past body":    sealBody(t, body(1, 0, entry[:len(entry)-1])),
		"bytes after last":   sealBody(t, body(1, 0, entry, []byte{0})),
		"object twice":       sealBody(t, body(2, 0, entry, entry)),
		"shallow and object": sealBody(t, body(1, 1, shallowEntry, entry)),
		"unknown type code":  sealBody(t, body(0, 1, append([]byte{9}, objs[0].ID.Digest[:]...))),
		"bad envelope":       sealBody(t, body(1, 0, []byte{3}, []byte("xyz"))),
		"unknown codec":      badCodec,
		"raw truncated":      raw[:len(raw)-3],
		"raw trailing":       append(bytes.Clone(raw), 0),
		"raw bytes after":    sealRaw(body(1, 0, entry, []byte{0})),
		"raw no body":        raw[:frameHeaderSize+1],
	}
	for name, frame := range cases {
		if _, err := ReadFrame(frame, a, objects.DefaultPackLimits); !errors.Is(err, ErrBadFrame) {
			t.Errorf("%s: ReadFrame = %v, want ErrBadFrame", name, err)
		}
	}
	big := make([]byte, objects.MaxPackBytes+1)
	copy(big, good)
	if _, err := ReadFrame(big, a, objects.DefaultPackLimits); !errors.Is(err, ErrBadFrame) {
		t.Errorf("oversized frame: ReadFrame = %v, want ErrBadFrame", err)
	}
}

// TestFrameBomb: a body inflating past the bound is refused without being
// held whole.
func TestFrameBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses 256 MiB")
	}
	frame := sealBody(t, make([]byte, objects.MaxPackBodyBytes+1))
	if _, err := ReadFrame(frame, objects.SHA256, objects.DefaultPackLimits); !errors.Is(err, ErrBadFrame) {
		t.Fatalf("ReadFrame of a bomb = %v, want ErrBadFrame", err)
	}
}

func TestWriteFrameRefusals(t *testing.T) {
	objs := frameObjects(objects.SHA256, 3)
	lim := objects.PackLimits{Objects: 2, Shallow: 2}
	if _, _, err := WriteFrame(objs, nil, lim, true); !errors.Is(err, ErrBadFrame) {
		t.Errorf("over the object count: %v", err)
	}
	if _, _, err := WriteFrame(append(objs[:1:1], objs[0]), nil, objects.DefaultPackLimits, true); !errors.Is(err, ErrBadFrame) {
		t.Errorf("a repeated object: %v", err)
	}
	mixed := append(objs[:1:1], objects.NewBlob(objects.BLAKE3, []byte("b3")))
	if _, _, err := WriteFrame(mixed, nil, objects.DefaultPackLimits, false); !errors.Is(err, objects.ErrPackAlgoMixed) {
		t.Errorf("mixed profiles: %v", err)
	}
	if _, _, err := WriteFrame(objs[:1], []objects.OID{objs[0].ID}, objects.DefaultPackLimits, false); !errors.Is(err, ErrBadFrame) {
		t.Errorf("a shallow id also sent: %v", err)
	}
}

// zstdDeclaring returns a zstd stream of a few bytes whose header declares
// size bytes of content: one RLE block of 100 bytes follows.
func zstdDeclaring(size uint64) []byte {
	s := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0} // magic; an 8-byte content size, single segment
	s = binary.LittleEndian.AppendUint64(s, size)
	blk := uint32(1 | 1<<1 | 100<<3) // last block, RLE, 100 bytes
	return append(s, byte(blk), byte(blk>>8), byte(blk>>16), 'a')
}

// TestFrameDeclaredSizeRefusedBeforeAlloc: a frame of a few dozen bytes
// whose zstd header declares 256 MiB is refused with an error saying so,
// and reading it allocates next to nothing (the reader sized its buffer
// from the declaration, 256 MiB, before the decoder failed).
func TestFrameDeclaredSizeRefusedBeforeAlloc(t *testing.T) {
	// Warm the decoder pool, so its tables are not counted.
	if _, err := ReadFrame(sealBody(t, []byte{0, 0}), objects.SHA256, objects.DefaultPackLimits); err != nil {
		t.Fatal(err)
	}
	stream := zstdDeclaring(objects.MaxPackBodyBytes)
	frame := append(append([]byte(FrameMagic), make([]byte, sha256.Size)...), codecZstd)
	frame = append(frame, stream...)
	if len(frame) > 64 {
		t.Fatalf("the test frame is %d bytes", len(frame))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(frame, objects.SHA256, objects.DefaultPackLimits)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("refusing a %d-byte frame allocated %d bytes", len(frame), grew)
	}
	if !errors.Is(err, ErrBadFrame) || !strings.Contains(err.Error(), "declares 268435456 bytes") {
		t.Fatalf("ReadFrame of a %d-byte frame declaring 256 MiB = %v, want ErrBadFrame saying what it declares", len(frame), err)
	}
}
