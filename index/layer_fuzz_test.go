package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tinehq/tine/objects"
)

// sampleLayer is a layer holding one of every kind of entry.
func sampleLayer() *delta {
	d := sampleData()
	a := d.algo
	id := func(t objects.Type, b byte) objects.OID { return objects.OID{Type: t, Algo: a, Digest: [32]byte{b}} }
	return &delta{
		refs:   []RefEntry{{Name: "heads/gone"}, {Name: "heads/main", ID: id(objects.TypeRun, 9)}},
		events: []EventSummary{{ID: id(objects.TypeEvent, 1), Kind: "tool", Label: "x", parentIDs: []objects.OID{id(objects.TypeEvent, 0)}}, {ID: id(objects.TypeEvent, 2), Missing: true}},
		runs: []layerRun{
			{entry: RunEntry{Run: id(objects.TypeRun, 8), Status: "running"}, own: []objects.OID{id(objects.TypeEvent, 1)}, tips: []objects.OID{id(objects.TypeEvent, 1)}},
			{entry: RunEntry{Run: id(objects.TypeRun, 9), Status: "completed", Keyed: []KeyedEvent{{Event: id(objects.TypeEvent, 2), Table: "gate-input", Key: "k"}}},
				from: id(objects.TypeRun, 8), prefix: 1, inherit: true, own: []objects.OID{id(objects.TypeEvent, 2)}, tips: []objects.OID{id(objects.TypeEvent, 2)}},
		},
		atts:     d.atts,
		attsGone: []objects.OID{id(objects.TypeAttestation, 0xee)},
		anns:     d.anns,
		annsGone: []objects.OID{id(objects.TypeAnnotation, 0xee)},
	}
}

// resealSHA replaces the checksum that ends a layer or chain file with one
// that matches, so a fuzzed body reaches the decoder behind it.
func resealSHA(b []byte) []byte {
	if len(b) < checksumSize {
		return b
	}
	n := len(b) - checksumSize
	sum := sha256.Sum256(b[:n])
	return append(bytes.Clone(b[:n]), sum[:]...)
}

// FuzzDecodeLayer feeds arbitrary layer files, as they are and resealed,
// to the layer decoder and applies what decodes to a sample catalog:
// neither may panic; a decoded layer re-encodes to the same bytes.
func FuzzDecodeLayer(f *testing.F) {
	good := encodeLayer(sampleLayer(), objects.BLAKE3)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(encodeLayer(&delta{}, objects.BLAKE3))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, file := range [][]byte{b, resealSHA(b)} {
			l, err := decodeLayer(file, objects.BLAKE3)
			if err != nil {
				continue
			}
			if enc := encodeLayer(l, objects.BLAKE3); !bytes.Equal(enc, file) {
				t.Fatalf("a decoded layer re-encodes to other bytes")
			}
			_, _ = apply(sampleData(), []*delta{l})
		}
	})
}

// FuzzReadChain feeds arbitrary chain files, as they are and resealed, to
// the chain reader: it never panics, and what it accepts names at most
// MaxLayers layers and is what writeCatChain writes for them.
func FuzzReadChain(f *testing.F) {
	dir := f.TempDir()
	if err := writeCatChain(dir, [32]byte{1}, [][32]byte{{2}, {3}}); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, layerChainFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(binary.LittleEndian.AppendUint32(good[:44:44], 1<<31))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, file := range [][]byte{b, resealSHA(b)} {
			p := filepath.Join(dir, layerChainFile)
			if err := os.WriteFile(p, file, 0o644); err != nil {
				t.Fatal(err)
			}
			sum, names, err := readCatChain(dir)
			if err != nil {
				continue
			}
			if len(names) > MaxLayers {
				t.Fatalf("a chain of %d layers accepted", len(names))
			}
			if err := writeCatChain(dir, sum, names); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(p); !bytes.Equal(again, file) {
				t.Fatal("an accepted chain is not what writeCatChain writes")
			}
		}
	})
}

// TestLayerCountsCostWhatTheBytesHold: a layer whose count of refs, event
// summaries, runs or attestations is as large as its bytes allow, followed by bytes no
// entry decodes from, is refused having allocated little: before, the
// decoder allocated every claimed entry first (80 to 344 bytes each, 2 to
// 40 bytes of file apiece: a 1 GiB layer could ask for 40 GiB) and then
// walked them all after the first failed.
func TestLayerCountsCostWhatTheBytesHold(t *testing.T) {
	filler := bytes.Repeat([]byte{0xff}, 4<<20)
	for section := range 4 {
		e := &encoder{}
		e.b = append(e.b, layerMagic...)
		e.uv(Version)
		e.str(string(objects.BLAKE3))
		for range section {
			e.uv(0)
		}
		e.uv(uint64(len(filler) / []int{2, 34, 40, 8}[section])) // as many as the bytes allow
		e.b = append(e.b, filler...)
		e.b = binary.LittleEndian.AppendUint64(e.b, 0)
		h := objects.SHA256.New()
		h.Write(e.b)
		file := h.Sum(e.b)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := decodeLayer(file, objects.BLAKE3)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("section %d: a layer of filler decoded", section)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Fatalf("section %d: refusing a %d-byte layer allocated %d bytes (%v)", section, len(file), n, err)
		}
	}
}

// TestCatalogCountsCostWhatTheBytesHold: the same for the base file's
// evidence rules, refs, runs, attestations and annotations (its event
// table keeps room for the layers' events, allocated up front).
func TestCatalogCountsCostWhatTheBytesHold(t *testing.T) {
	filler := bytes.Repeat([]byte{0xff}, 4<<20)
	// Sections in file order: rules, refs, events, runs, atts, anns; the
	// events' count stays 0.
	for _, section := range []int{0, 1, 3, 4, 5} {
		e := &encoder{}
		e.b = append(e.b, magic...)
		e.uv(Version)
		e.str(string(objects.BLAKE3))
		for range section {
			e.uv(0)
		}
		e.uv(uint64(len(filler) / []int{3, 2, 34, 2, 8, 2}[section]))
		e.b = append(e.b, filler...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := decodeBody(e.b)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("section %d: a catalog of filler decoded", section)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Fatalf("section %d: refusing a %d-byte catalog allocated %d bytes (%v)", section, len(e.b), n, err)
		}
	}
}
