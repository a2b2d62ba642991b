package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/objects/pack/packtest"
)

// blockObjects returns n distinct event-like JSON blobs that compress.
func blockObjects(a objects.Algo, n int) []*objects.Object {
	out := make([]*objects.Object, n)
	for i := range out {
		out[i] = objects.NewBlob(a, []byte(fmt.Sprintf(`{"kind":"model","label":"step %d","note":"a block of a frame test"}`, i)))
	}
	return out
}

// TestFrameBlocksRoundTrip writes storage blocks and loose objects into a
// version 2 frame and reads them back: every object byte for byte, each
// block's payload as sent, its ids filled in, in both codecs and hash
// profiles; a version 1 frame reads through ReadFrameBlocks too, and
// ReadFrame refuses a version 2 one.
func TestFrameBlocksRoundTrip(t *testing.T) {
	for _, a := range []objects.Algo{objects.SHA256, objects.BLAKE3} {
		for _, compress := range []bool{false, true} {
			// Over 1,024 objects in blocks: decoded on two CPUs or more.
			objs := blockObjects(a, 1200)
			blocks := packtest.RawBlocksOf(t, a, objs[:1100], 1024)
			loose := objs[1100:]
			shallow := []objects.OID{a.Derive(objects.TypeEvent, 1, []byte("{}"))}
			frame, id, err := WriteFrameBlocks(blocks, loose, shallow, objects.DefaultPackLimits, compress)
			if err != nil {
				t.Fatal(err)
			}
			if !IsFrameBlocks(frame) || IsFrame(frame) || id != FrameID(frame) {
				t.Fatalf("magic %q, id %s", frame[:10], id)
			}
			pf, got, err := ReadFrameBlocks(frame, a, objects.DefaultPackLimits)
			if err != nil {
				t.Fatal(err)
			}
			if len(pf.Objects) != 1200 || len(pf.Shallow) != 1 || pf.Shallow[0] != shallow[0] || pf.ID != id || len(got) != len(blocks) {
				t.Fatalf("%d objects, shallow %v, id %s, %d blocks", len(pf.Objects), pf.Shallow, pf.ID, len(got))
			}
			want := map[objects.OID][]byte{}
			for _, o := range objs {
				want[o.ID] = o.Stored()
			}
			for _, o := range pf.Objects {
				if !bytes.Equal(o.Stored(), want[o.ID]) {
					t.Fatalf("%s differs", o.ID)
				}
			}
			for j := range blocks {
				if !bytes.Equal(got[j].Payload, blocks[j].Payload) || fmt.Sprint(got[j].IDs) != fmt.Sprint(blocks[j].IDs) {
					t.Fatalf("block %d differs", j)
				}
			}
			if _, err := ReadFrame(frame, a, objects.DefaultPackLimits); !errors.Is(err, ErrBadFrame) {
				t.Fatalf("ReadFrame of a version 2 frame: %v", err)
			}
			v1, _, err := WriteFrame(objs, nil, objects.DefaultPackLimits, compress)
			if err != nil {
				t.Fatal(err)
			}
			if pf, got, err := ReadFrameBlocks(v1, a, objects.DefaultPackLimits); err != nil || len(pf.Objects) != 1200 || got != nil {
				t.Fatalf("version 1 through ReadFrameBlocks: %v", err)
			}
		}
	}
}

// rawBlockEntry is a block as a test spells it into a body, checked by
// nothing.
type rawBlockEntry struct {
	kind    byte
	rawLen  uint64
	lengths []uint64
	payload []byte
}

// blocksBody builds a version 2 body with no shallow ids, no writer
// checks, and seals it uncompressed.
func blocksBody(blocks []rawBlockEntry, loose [][]byte) []byte {
	body := binary.AppendUvarint(nil, uint64(len(blocks)))
	body = binary.AppendUvarint(body, uint64(len(loose)))
	body = binary.AppendUvarint(body, 0)
	for _, b := range blocks {
		body = append(body, b.kind)
		body = binary.AppendUvarint(body, b.rawLen)
		body = binary.AppendUvarint(body, uint64(len(b.lengths)))
		for _, l := range b.lengths {
			body = binary.AppendUvarint(body, l)
		}
		body = binary.AppendUvarint(body, uint64(len(b.payload)))
		body = append(body, b.payload...)
	}
	for _, e := range loose {
		body = binary.AppendUvarint(body, uint64(len(e)))
		body = append(body, e...)
	}
	sum := sha256.Sum256(body)
	return append(append(append([]byte(FrameBlocksMagic), sum[:]...), codecNone), body...)
}

// TestFrameBlocksRefusals: every damaged or hostile version 2 frame is
// refused with ErrBadFrame, the claims of a block checked before a buffer
// of its size exists.
func TestFrameBlocksRefusals(t *testing.T) {
	a := objects.SHA256
	objs := blockObjects(a, 3)
	envs := [][]byte{objs[0].Stored(), objs[1].Stored(), objs[2].Stored()}
	joined := bytes.Join(envs, nil)
	n := func(b []byte) uint64 { return uint64(len(b)) }
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	zjoined := enc.EncodeAll(joined, nil)
	zshort := enc.EncodeAll(joined[:len(joined)-5], nil)
	ok := rawBlockEntry{pack.KindZstd, n(joined), []uint64{n(envs[0]), n(envs[1]), n(envs[2])}, zjoined}
	if _, _, err := ReadFrameBlocks(blocksBody([]rawBlockEntry{ok}, nil), a, objects.DefaultPackLimits); err != nil {
		t.Fatalf("the well-formed frame: %v", err)
	}
	many := make([]rawBlockEntry, 129)
	for i := range many {
		many[i] = rawBlockEntry{pack.KindZstd, 2 << 20, []uint64{1 << 20, 1 << 20}, make([]byte, 64)}
	}
	big := make([]byte, pack.MaxRawEnvelope+1)
	for _, c := range []struct {
		name  string
		frame []byte
		lim   objects.PackLimits
		want  string
	}{
		{"a claim its payload cannot decode to", blocksBody([]rawBlockEntry{{pack.KindZstd, 2 << 20, []uint64{1 << 20, 1 << 20}, zjoined[:20]}}, nil), objects.DefaultPackLimits, "more than it can decode to"},
		{"a block over the bound", blocksBody([]rawBlockEntry{{pack.KindZstd, pack.MaxRawBlock + 1, []uint64{pack.MaxRawBlock + 1}, zjoined}}, nil), objects.DefaultPackLimits, "beyond the frame's bounds"},
		{"blocks decoding past the body bound together", blocksBody(many, nil), objects.DefaultPackLimits, "blocks decoding to more than"},
		{"an envelope over the bound", blocksBody([]rawBlockEntry{{pack.KindStored, n(big), []uint64{n(big)}, big}}, nil), objects.DefaultPackLimits, "an envelope of"},
		{"bytes no envelope declares", blocksBody([]rawBlockEntry{{pack.KindZstd, n(joined), []uint64{n(envs[0]), n(envs[1])}, zjoined}}, nil), objects.DefaultPackLimits, "envelopes of"},
		{"a payload decoding short", blocksBody([]rawBlockEntry{{pack.KindZstd, n(joined), ok.lengths, zshort}}, nil), objects.DefaultPackLimits, "decoded"},
		{"a corrupt payload", blocksBody([]rawBlockEntry{{pack.KindZstd, n(joined), ok.lengths, append(bytes.Clone(zjoined[:8]), bytes.Repeat([]byte{0xff}, len(zjoined)-8)...)}}, nil), objects.DefaultPackLimits, "blocks[0]"},
		{"a delta block", blocksBody([]rawBlockEntry{{2, n(joined), ok.lengths, zjoined}}, nil), objects.DefaultPackLimits, "kind 2"},
		{"a stored block of another length", blocksBody([]rawBlockEntry{{pack.KindStored, n(joined), ok.lengths, joined[:10]}}, nil), objects.DefaultPackLimits, "stored block"},
		{"an envelope that is not one", blocksBody([]rawBlockEntry{{pack.KindStored, 4, []uint64{4}, []byte("junk")}}, nil), objects.DefaultPackLimits, "blocks[0]"},
		{"an object in a block and loose", blocksBody([]rawBlockEntry{ok}, [][]byte{envs[1]}), objects.DefaultPackLimits, "sent twice"},
		{"more objects than the counts", blocksBody([]rawBlockEntry{ok}, [][]byte{envs[0]}), objects.PackLimits{Objects: 3, Shallow: 3}, "beyond the frame's bounds"},
		{"truncated", blocksBody([]rawBlockEntry{ok}, nil)[:60], objects.DefaultPackLimits, ""},
	} {
		_, _, err := ReadFrameBlocks(c.frame, a, c.lim)
		if !errors.Is(err, ErrBadFrame) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, ErrBadFrame, c.want)
		}
	}
}

// FuzzReadFrameBlocks feeds the version 2 reader arbitrary bodies: it
// never panics, and whatever it accepts is a frame whose every block's
// objects fill the block (CheckShape) and whose objects are distinct.
func FuzzReadFrameBlocks(f *testing.F) {
	a := objects.SHA256
	objs := blockObjects(a, 3)
	envs := [][]byte{objs[0].Stored(), objs[1].Stored(), objs[2].Stored()}
	joined := bytes.Join(envs, nil)
	n := func(b []byte) uint64 { return uint64(len(b)) }
	f.Add(blocksBody([]rawBlockEntry{{pack.KindStored, n(joined), []uint64{n(envs[0]), n(envs[1]), n(envs[2])}, joined}}, nil)[len(FrameBlocksMagic)+sha256.Size+1:])
	f.Add(blocksBody(nil, [][]byte{envs[0]})[len(FrameBlocksMagic)+sha256.Size+1:])
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha256.Sum256(body)
		frame := append(append(append([]byte(FrameBlocksMagic), sum[:]...), codecNone), body...)
		pf, blocks, err := ReadFrameBlocks(frame, a, objects.DefaultPackLimits)
		if err != nil {
			if !errors.Is(err, ErrBadFrame) {
				t.Fatalf("an error not wrapping ErrBadFrame: %v", err)
			}
			return
		}
		seen := map[objects.OID]bool{}
		for _, o := range pf.Objects {
			if seen[o.ID] {
				t.Fatalf("%s twice", o.ID)
			}
			seen[o.ID] = true
		}
		for _, b := range blocks {
			if err := b.CheckShape(); err != nil {
				t.Fatalf("an accepted block: %v", err)
			}
		}
	})
}
