package pack

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spSeedPack writes a small pack and returns its index and pack bytes.
func spSeedPack(f *testing.F, opt Options) (idx, pack []byte) {
	dir := f.TempDir()
	w, err := NewWriter(dir, objects.BLAKE3, opt)
	if err != nil {
		f.Fatal(err)
	}
	for _, o := range spTestObjects(f, objects.BLAKE3, 12) {
		if err := w.Add(o); err != nil {
			f.Fatal(err)
		}
	}
	name, err := w.Commit()
	if err != nil {
		f.Fatal(err)
	}
	idx, err = os.ReadFile(filepath.Join(dir, name+".idx"))
	if err != nil {
		f.Fatal(err)
	}
	pack, err = os.ReadFile(filepath.Join(dir, name+".pack"))
	if err != nil {
		f.Fatal(err)
	}
	return idx, pack
}

// FuzzStoragePackIndex checks that no index bytes make the parser panic or
// accept tables that a lookup would read out of range. Each input is tried
// as is and with a recomputed trailer, so the structure checks behind the
// checksum are reached too.
func FuzzStoragePackIndex(f *testing.F) {
	for _, opt := range []Options{{}, {BlockSize: -1}} {
		idx, _ := spSeedPack(f, opt)
		f.Add(idx)
		f.Add(idx[:len(idx)/2])
	}
	f.Add([]byte(spIndexMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		fixed := append([]byte(nil), data...)
		if len(fixed) >= spSumSize {
			sum := sha256.Sum256(fixed[:len(fixed)-spSumSize])
			copy(fixed[len(fixed)-spSumSize:], sum[:])
		}
		for _, in := range [][]byte{data, fixed} {
			for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
				x, err := parseSPIndex(in, a)
				if err != nil {
					continue
				}
				for i := range x.count {
					e := x.entry(i)
					if j, ok := x.find(e.key); !ok || j != i {
						t.Fatalf("entry %d not found by its own key", i)
					}
					_ = x.oid(i, a)
				}
				_, _ = x.find(spKey{})
				_ = x.checkPack(int64(len(in)))
				_ = x.checkPack(0)
			}
		}
	})
}

// FuzzStoragePackEntry feeds arbitrary block bytes (with a matching CRC,
// so decoding is reached) and envelope bounds to the entry reader: it must
// return an error or exactly the envelope's bytes, never panic or allocate
// beyond its bounds.
func FuzzStoragePackEntry(f *testing.F) {
	for _, opt := range []Options{{}, {BlockSize: -1}} {
		_, pack := spSeedPack(f, opt)
		body := pack[spPackHeader : len(pack)-spSumSize]
		f.Add(body[:min(len(body), 4096)], uint32(0), uint32(100))
	}
	stored := append([]byte{spKindStored, 0, 0, 0, 5}, "ab\ncd"...)
	f.Add(stored, uint32(0), uint32(5))
	f.Add([]byte{spKindZstd, 0xff, 0xff, 0xff, 0xff, 0x28, 0xb5, 0x2f, 0xfd}, uint32(1), uint32(2))
	f.Fuzz(func(t *testing.T, block []byte, start, length uint32) {
		if len(block) > 1<<20 || uint64(start)+uint64(length) > 1<<22 {
			return // keep iterations cheap; the bounds logic is the same
		}
		if len(block) >= spBlockHeader && binary.BigEndian.Uint32(block[1:5]) > 1<<22 {
			return
		}
		path := filepath.Join(t.TempDir(), "p")
		content := append(append(make([]byte, spPackHeader), block...), make([]byte, spSumSize)...)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		p := &spPack{name: "fuzz", algo: objects.BLAKE3, f: file, size: int64(len(content))}
		e := spEntry{off: spPackHeader, size: uint32(len(block)), start: start, length: length,
			crc: crc32.Checksum(block, crc32c)}
		id := objects.NewBlob(objects.BLAKE3, nil).ID
		env, err := p.envelope(id, e)
		if err == nil && uint32(len(env)) != length {
			t.Fatalf("envelope of %d bytes, want %d", len(env), length)
		}
		if err == nil {
			_, _ = objects.DecodeEnvelopeAs(id, env)
		}
	})
}

// FuzzStoragePackIndexShallow checks the lookups a Store makes on an index
// it has only shallowly checked (index_trust.go): whatever the keys and
// tables hold, a search and an entry's bound check stay inside the bytes
// and never panic, and whatever the full checks accept passes them too.
func FuzzStoragePackIndexShallow(f *testing.F) {
	for _, opt := range []Options{{}, {BlockSize: -1}} {
		idx, _ := spSeedPack(f, opt)
		f.Add(idx, int64(1<<20))
		flipped := append([]byte(nil), idx...)
		flipped[spIndexHeader+spFanout+40] ^= 0xff
		f.Add(flipped, int64(100))
	}
	f.Fuzz(func(t *testing.T, data []byte, packSize int64) {
		x, err := parseSPIndexShallow(data, objects.BLAKE3)
		if err != nil {
			return
		}
		full := x.checkSum(data) == nil && x.checkTables() == nil && x.checkPack(packSize) == nil
		for i := range x.count {
			var k spKey
			copy(k[:], x.key(i))
			j, ok := x.find(k)
			if ok {
				_ = x.checkEntry(j, packSize)
			}
			if full && (!ok || j != i || x.checkEntry(i, packSize) != nil) {
				t.Fatalf("entry %d of a fully verified index fails a lookup", i)
			}
		}
		var k spKey
		copy(k[:], data)
		x.find(k)
	})
}
