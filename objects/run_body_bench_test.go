package objects

import "testing"

// longRun is a run body of n events, its tip the last.
func longRun(b *testing.B, n int) *Object {
	ids := make([]OID, n)
	for i := range ids {
		ids[i] = OID{Type: TypeEvent, Algo: BLAKE3}
		ids[i].Digest[0], ids[i].Digest[1], ids[i].Digest[2] = byte(i), byte(i>>8), byte(i>>16)
	}
	o, err := NewJSONObject(BLAKE3, TypeRun, 1, ObjectValue(
		Member{Key: "events", Value: oidsValue(ids)},
		Member{Key: "roots", Value: oidsValue(ids[:1])},
		Member{Key: "status", Value: String("running")},
		Member{Key: "tips", Value: oidsValue(ids[n-1:])}))
	if err != nil {
		b.Fatal(err)
	}
	return o
}

// BenchmarkSplitRunBody30k: the split of a 30,000-event run's body (2.4
// MB), which an append does instead of a parse.
func BenchmarkSplitRunBody30k(b *testing.B) {
	o := longRun(b, 30000)
	b.SetBytes(int64(len(o.Body)))
	for b.Loop() {
		if _, err := SplitRunBody(BLAKE3, o.Body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunAppend30k: one event appended to a 30,000-event run, by
// the splice encoder and by the full encoder (parse, derive, encode, as
// tine did before the splice).
func BenchmarkRunAppend30k(b *testing.B) {
	o := longRun(b, 30000)
	add := OID{Type: TypeEvent, Algo: BLAKE3, Digest: [32]byte{0xff, 0xfe}}
	set := []Member{{Key: "tips", Value: oidsValue([]OID{add})}, {Key: "status", Value: String("running")}}
	b.Run("splice", func(b *testing.B) {
		for b.Loop() {
			rb, err := SplitRunBody(BLAKE3, o.Body)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := rb.Append([]OID{add}, set, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			p, err := DecodeEnvelope(BLAKE3, o.Stored())
			if err != nil {
				b.Fatal(err)
			}
			events, _ := p.Value.Get("events")
			all := append(append([]Value{}, events.Array...), String(add.String()))
			if _, err := NewJSONObject(BLAKE3, TypeRun, 1, deriveForTest(p.Value, append([]Member{{Key: "events", Value: Array(all...)}}, set...), nil)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
