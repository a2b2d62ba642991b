package objects

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"testing"
)

func TestWritePackFrameLayout(t *testing.T) {
	g := newTPGraph(t, SHA256)
	frame, id, err := WritePack(g.all(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(frame[:10]) != PackMagic {
		t.Fatalf("magic %q", frame[:10])
	}
	zr, err := zlib.NewReader(bytes.NewReader(frame[PackHeaderSize:]))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if !bytes.Equal(sum[:], frame[10:PackHeaderSize]) || id != PackIDPrefix+hex.EncodeToString(sum[:]) {
		t.Fatalf("digest field %x and id %s do not name the body %x", frame[10:42], id, sum)
	}
	// SPEC §2.8: writers use level 9; the zlib header's FLEVEL bits say 3
	// (maximum compression) and the header checksum holds.
	if frame[PackHeaderSize] != 0x78 || frame[PackHeaderSize+1] != 0xda {
		t.Errorf("zlib header %x, want 78da (level 9)", frame[PackHeaderSize:PackHeaderSize+2])
	}
	// The hand-written manifest is exactly its own v3 canonical form.
	v, err := ParseJSON(body, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	canon, err := CanonV3(v)
	if err != nil || !bytes.Equal(canon, body) {
		t.Fatalf("manifest is not canonical: %v\n%s", err, body)
	}
	// The writer is deterministic whatever the input order.
	rev := g.all()
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	frame2, id2, err := WritePack(rev, nil)
	if err != nil || id2 != id || !bytes.Equal(frame2, frame) {
		t.Fatalf("reordered input gave another frame (%v)", err)
	}
	if n := packManifestSize(sortedTP(g.all()), nil); n != int64(len(body)) {
		t.Errorf("packManifestSize %d, body is %d bytes", n, len(body))
	}
}

// sortedTP returns objs sorted by oid.
func sortedTP(objs []*Object) []*Object {
	out := slices.Clone(objs)
	slices.SortFunc(out, func(x, y *Object) int { return x.ID.Compare(y.ID) })
	return out
}

func TestWritePackRefusals(t *testing.T) {
	g := newTPGraph(t, SHA256)
	b3 := newTPGraph(t, BLAKE3)
	forged := *g.blob
	forged.Body = []byte("not hello\n")
	notEvent := tpJSON(t, SHA256, TypeEvent, tpMember("parent_ids", tpIDs(g.blob)))
	for _, tc := range []struct {
		name    string
		objs    []*Object
		shallow []OID
		reason  Reason
		err     error
	}{
		{"missing boundary", []*Object{g.e1}, nil, ReasonPackShallowNotLinkClosure, nil},
		{"extra boundary", []*Object{g.e1}, []OID{g.blob.ID, g.e2.ID}, ReasonPackShallowNotLinkClosure, nil},
		{"boundary of a closed pack", []*Object{g.e1, g.blob}, []OID{g.run.ID}, ReasonPackShallowNotLinkClosure, nil},
		{"duplicate object", []*Object{g.blob, g.blob}, nil, ReasonPackDuplicateIds, nil},
		{"duplicate boundary", []*Object{g.e1}, []OID{g.blob.ID, g.blob.ID}, ReasonPackDuplicateIds, nil},
		{"overlap", []*Object{g.e1, g.blob}, []OID{g.blob.ID}, ReasonPackShallowOverlapsObjects, nil},
		{"forged id", []*Object{&forged}, nil, ReasonEnvelopeOidMismatch, nil},
		{"link rule", []*Object{notEvent, g.blob}, nil, ReasonLinkParentIdsNotEvents, nil},
		{"mixed profiles", []*Object{g.blob, b3.blob}, nil, "", ErrPackAlgoMixed},
		{"mixed boundary", []*Object{g.e1}, []OID{b3.blob.ID}, "", ErrPackAlgoMixed},
		{"nil object", []*Object{nil}, nil, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frame, _, err := WritePack(tc.objs, tc.shallow)
			if err == nil {
				t.Fatalf("wrote a %d-byte frame", len(frame))
			}
			if tc.reason != "" && !HasReason(err, tc.reason) {
				t.Fatalf("error %v, want %s", err, tc.reason)
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
		})
	}
}

func TestWritePackBounds(t *testing.T) {
	objs := make([]*Object, MaxPackObjects+1)
	for i := range objs {
		objs[i] = NewBlob(SHA256, []byte{byte(i), byte(i >> 8)})
	}
	if _, _, err := WritePack(objs, nil); !HasReason(err, ReasonPackTooManyObjects) {
		t.Fatalf("%d objects: %v", len(objs), err)
	}
	if _, _, err := WritePack(objs[:MaxPackObjects], nil); err != nil {
		t.Fatalf("%d objects: %v", MaxPackObjects, err)
	}
	// An empty pack is a valid frame (the conformance "empty" case).
	frame, id, err := WritePack(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id != "sha256:a3ee6af344b90b0340dc27c8ce5ff99f8b83ac3244035fae1ac77fc69ecb3028" {
		t.Errorf("empty pack id %s", id)
	}
	if _, err := InspectPack(frame, SHA256); err != nil {
		t.Fatal(err)
	}
}

func TestPackManifestForRefusals(t *testing.T) {
	if _, _, err := PackManifestFor(SHA256, [][]byte{[]byte("no header")}); !HasReason(err, ReasonEnvelopeMalformed) {
		t.Errorf("bad envelope: %v", err)
	}
	blob := NewBlob(SHA256, []byte("x")).Stored()
	if _, _, err := PackManifestFor(SHA256, [][]byte{blob, blob}); !HasReason(err, ReasonPackDuplicateIds) {
		t.Errorf("duplicate: %v", err)
	}
	// The profile decides the ids: the same envelope is another object.
	body, _, err := PackManifestFor(BLAKE3, [][]byte{blob})
	if err != nil || !bytes.Contains(body, []byte(`"id":"blob:blake3:`)) {
		t.Errorf("blake3 manifest %s: %v", body, err)
	}
}
