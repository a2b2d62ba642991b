package objects

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"testing"
)

// tpFuzzBodyBound is the inflate bound of the fuzz target: small, so a
// zlib bomb found by the fuzzer costs a megabyte, not 256 MiB.
const tpFuzzBodyBound = 1 << 20

// FuzzInspectPack feeds arbitrary frames to the pack reader: it must never
// panic, must return either a frame or a *FormatError, and anything it
// accepts must re-inspect identically and carry only id-verified objects.
func FuzzInspectPack(f *testing.F) {
	g := newTPGraph(f, SHA256)
	whole, _, err := WritePack(g.all(), nil)
	if err != nil {
		f.Fatal(err)
	}
	partial, _, err := WritePack([]*Object{g.e1}, []OID{g.blob.ID})
	if err != nil {
		f.Fatal(err)
	}
	empty, _, _ := WritePack(nil, nil)
	f.Add(whole)
	f.Add(partial)
	f.Add(empty)
	f.Add(whole[:len(whole)-3])
	f.Add(append(bytes.Clone(empty), 0))
	f.Add([]byte(PackMagic))
	for _, tc := range packRejectVectors {
		if b, err := base64.StdEncoding.DecodeString(tc.b64); err == nil {
			f.Add(b)
		}
	}
	// A small bomb: 4 MiB of zeros behind a valid magic.
	var bomb bytes.Buffer
	bomb.WriteString(PackMagic)
	bomb.Write(make([]byte, 32))
	zw, _ := zlib.NewWriterLevel(&bomb, 9)
	zw.Write(make([]byte, 4<<20))
	zw.Close()
	f.Add(bomb.Bytes())

	f.Fuzz(func(t *testing.T, frame []byte) {
		pf, err := inspectPack(frame, SHA256, tpFuzzBodyBound, DefaultPackLimits)
		if err != nil {
			if _, ok := ReasonOf(err); !ok {
				t.Fatalf("error without a reason: %v", err)
			}
			return
		}
		again, err := inspectPack(frame, SHA256, tpFuzzBodyBound, DefaultPackLimits)
		if err != nil || again.ID != pf.ID || len(again.Objects) != len(pf.Objects) {
			t.Fatalf("second inspection differs: %v", err)
		}
		for _, o := range pf.Objects {
			if o.ID.Algo.Derive(o.Type, o.Schema, o.Body) != o.ID {
				t.Fatalf("accepted %s whose body hashes elsewhere", o.ID)
			}
		}
		// Installing either succeeds or refuses with a reason; it never
		// writes part of a refused pack.
		s := newMapStore(SHA256)
		if _, err := InstallPack(t.Context(), frame, s, nil); err != nil && s.Len() != 0 {
			t.Fatalf("refused install (%v) wrote %d objects", err, s.Len())
		}
	})
}
