package objects

import (
	"bytes"
	"testing"
)

// FuzzDecodeEnvelope checks that DecodeEnvelope never panics, that every
// rejection carries a reason code, and that an accepted envelope is exactly
// the canonical bytes of the object it decodes to (SPEC §1.2: a reader never
// repairs), with links and payload rules running on it without a panic.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add(c.stored)
	}
	for _, c := range linksVectors {
		f.Add(c.input)
	}
	f.Add(env(hRun, `{"events":["`+vE1+`"],"manifests":{"t":"`+vHello+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE1+`"]}`))
	f.Add(env(hEvent, `{"cost":"1e5","usage":{"input":1,"x":1.5}}`))
	f.Add(env(`{"encoding":"json","schema":12,"type":"annotation"}`, `{"previous_id":"`+vA1+`"}`))
	f.Fuzz(func(t *testing.T, stored []byte) {
		for _, a := range []Algo{SHA256, BLAKE3} {
			o, err := DecodeEnvelope(a, stored)
			if err != nil {
				if _, ok := ReasonOf(err); !ok {
					t.Fatalf("rejection without a reason: %v", err)
				}
				continue
			}
			if !bytes.Equal(o.Stored(), stored) {
				t.Fatalf("accepted %q but re-encodes as %q", stored, o.Stored())
			}
			if o.ID != a.Derive(o.Type, o.Schema, o.Body) {
				t.Fatalf("id %s is not derived from the object", o.ID)
			}
			again, err := DecodeEnvelopeAs(o.ID, o.Stored())
			if err != nil || again.ID != o.ID {
				t.Fatalf("re-decode under its own name: %v", err)
			}
			// The payload rules must classify any decodable object.
			if _, err := Links(o); err != nil {
				if _, ok := ReasonOf(err); !ok {
					t.Fatalf("links rejection without a reason: %v", err)
				}
			}
			repo := &testRepo{objects: map[OID]*Object{}, present: map[OID]bool{}, shallow: map[OID]bool{}, fail: map[OID]error{}}
			_ = CheckRunGraph(o, repo)
			_ = CheckAnnotationChain(o, repo)
		}
	})
}
