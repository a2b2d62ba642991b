package pack

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestBlockClaimRefusedBeforeAlloc: a block of a few bytes whose header
// claims 256 MiB (and, for a streamed block, an index entry agreeing) is
// refused as damage naming the object, and reading it allocates next to
// nothing: the reader sized its buffer from the claim before the decoder
// failed. A pack fetched from an S3 remote is read by this code.
func TestBlockClaimRefusedBeforeAlloc(t *testing.T) {
	const claim = 256 << 20
	stream := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xe0} // zstd magic; an 8-byte content size
	stream = binary.LittleEndian.AppendUint64(stream, claim)
	rle := uint32(1 | 1<<1 | 100<<3) // last block, RLE, 100 bytes
	stream = append(stream, byte(rle), byte(rle>>8), byte(rle>>16), 'a')
	block := append([]byte{spKindZstd, 0, 0, 0, 0}, stream...)
	binary.BigEndian.PutUint32(block[1:spBlockHeader], claim)

	path := filepath.Join(t.TempDir(), "p")
	content := append(append(make([]byte, spPackHeader), block...), make([]byte, spSumSize)...)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := &spPack{name: "hostile", algo: objects.BLAKE3, f: f, size: int64(len(content))}
	id := objects.NewBlob(objects.BLAKE3, nil).ID
	crc := crc32.Checksum(block, crc32c)
	for _, e := range []spEntry{
		{off: spPackHeader, size: uint32(len(block)), length: 100, crc: crc},   // read whole, then decoded
		{off: spPackHeader, size: uint32(len(block)), length: claim, crc: crc}, // streamed: a large object
	} {
		// Warm the decoder pool and buffers, so their tables are not counted.
		_, _ = p.envelope(id, e)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := p.envelope(id, e)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
			t.Errorf("entry of length %d: refusing a %d-byte block allocated %d bytes", e.length, len(block), grew)
		}
		if err == nil || !strings.Contains(err.Error(), "claims 268435456 bytes") || !strings.Contains(err.Error(), id.String()) {
			t.Errorf("entry of length %d: envelope = %v, want a refusal naming the object and the claim", e.length, err)
		}
	}
}

// TestDeltaClaimRefusedBeforeAlloc: a delta whose header claims far more
// than its instructions can build is refused before its output is
// allocated.
func TestDeltaClaimRefusedBeforeAlloc(t *testing.T) {
	base := []byte("0123456789")
	ops := appendCopy(nil, 0, 10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := applyDelta(base, ops, 256<<20)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing a 3-byte delta claiming 256 MiB allocated %d bytes", grew)
	}
	if err == nil || !strings.Contains(err.Error(), "claims 268435456 bytes") {
		t.Errorf("applyDelta = %v, want a refusal naming the claim", err)
	}
	if out, err := applyDelta(base, ops, 10); err != nil || string(out) != string(base) {
		t.Errorf("a true claim: %q, %v", out, err)
	}
}
