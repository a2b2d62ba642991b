package index

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/tinehq/tine/objects"
)

// sampleData is a small catalog exercising every section.
func sampleData() *data {
	a := objects.BLAKE3
	run := a.Derive(objects.TypeRun, 1, []byte(`{"r":1}`))
	ev := a.Derive(objects.TypeEvent, 1, []byte(`{"e":1}`))
	att := a.Derive(objects.TypeAttestation, 1, []byte(`{"a":1}`))
	ann := a.Derive(objects.TypeAnnotation, 1, []byte(`{"n":1}`))
	return &data{
		algo:  a,
		rules: DefaultRules,
		refs:  []RefEntry{{Name: "heads/main", ID: run}, {Name: "tags/x", ID: ev}},
		events: []EventSummary{{ID: ev, Kind: "tool", Label: "shell", Time: 1.5, HasTime: true, Cost: 0.25, Duration: 2, Tokens: 10,
			ExitCode: -1, HasExit: true, Score: 0.5, HasScore: true, Params: []Param{{"lr", "0.1"}, {"seed", "2"}},
			Argv: "make test"}},
		runs: []RunEntry{{Run: run, Status: "running", CreatedAt: 7, HasCreatedAt: true, Events: []int32{0},
			Keyed: []KeyedEvent{{Event: ev, Table: TableGateInput, Key: "k"}}}},
		atts: []Attestation{{ID: att, Target: run, Signer: "s", Kind: KindEvaluation,
			Fields: []Field{{Name: "note", Value: "v"}}, Scores: []Score{{Name: "acc", Value: 0.5}, {Name: "z", Value: -1}},
			Signed: true, SignedAt: "2026-01-02T00:00:00Z"}},
		anns: []Annotation{{ID: ann, Target: ev}, {ID: objects.OID{Type: objects.TypeAnnotation, Algo: a, Digest: [32]byte{0xff}}}},
	}
}

// FuzzDecodeCatalog feeds arbitrary bytes to the file decoder and, with
// the trailer resealed, to the body decoder: neither may panic, and
// whatever decodes must re-encode to bytes that decode to the same data.
func FuzzDecodeCatalog(f *testing.F) {
	good := encode(sampleData())
	f.Add(good)
	f.Add(good[:len(good)-checksumSize-8])
	f.Add(good[:len(good)/2])
	f.Add([]byte(magic))
	f.Add(append([]byte(magic), 1, 6, 'b', 'l', 'a', 'k', 'e', '3', 0xff, 0xff, 0xff, 0xff, 0x0f))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := decode(b); err == nil {
			roundTrip(t, d)
		}
		d, err := decodeBody(b)
		if err != nil {
			return
		}
		roundTrip(t, d)
		file := binary.LittleEndian.AppendUint64(bytes.Clone(b), d.entries())
		h := objects.SHA256.New()
		h.Write(file)
		if _, err := decode(h.Sum(file)); err != nil {
			t.Fatalf("a decodable body with a valid trailer is refused: %v", err)
		}
	})
}

func roundTrip(t *testing.T, d *data) {
	t.Helper()
	enc := encode(d)
	d2, err := decode(enc)
	if err != nil {
		t.Fatalf("re-encoded catalog does not decode: %v", err)
	}
	if !bytes.Equal(encode(d2), enc) {
		t.Fatal("re-encoding is not stable")
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	d := sampleData()
	b := encode(d)
	got, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.refs[0] != d.refs[0] || got.atts[0].Scores[1] != d.atts[0].Scores[1] || !got.anns[1].Target.IsZero() {
		t.Fatalf("round trip lost data: %+v", got)
	}
	if !bytes.Equal(encode(got), b) {
		t.Fatal("round trip changed the bytes")
	}
}

func TestDecodeRefusesHostileCounts(t *testing.T) {
	// A count of 2^40 refs in a few bytes must be refused before any
	// allocation, as must an oversized string.
	body := append([]byte(magic), 1, 6)
	body = append(body, "blake3"...)
	body = append(body, 0)                   // no rules
	body = binary.AppendUvarint(body, 1<<40) // refs
	if _, err := decodeBody(body); err == nil {
		t.Fatal("a hostile ref count was accepted")
	}
	body = append(append([]byte(magic), 1), binary.AppendUvarint(nil, MaxStringBytes+1)...)
	body = append(body, make([]byte, MaxStringBytes+1)...)
	if _, err := decodeBody(body); err == nil {
		t.Fatal("an oversized string was accepted")
	}
}
