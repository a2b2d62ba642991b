package objects

import "testing"

// BenchmarkParseOID parses one event oid, as reading a run's event list
// does ten thousand times for a 10,000-event run.
func BenchmarkParseOID(b *testing.B) {
	s := BLAKE3.Derive(TypeEvent, 1, []byte(`{"kind":"bench"}`)).String()
	for b.Loop() {
		if _, err := ParseOID(s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseOIDEveryDigit puts every byte value at every digit position:
// only lowercase hex parses, to the digest the hex spells.
func TestParseOIDEveryDigit(t *testing.T) {
	good := BLAKE3.Derive(TypeEvent, 1, []byte(`{"kind":"digits"}`))
	s := []byte(good.String())
	at := len(s) - 64
	for i := 0; i < 64; i++ {
		for c := 0; c < 256; c++ {
			b := append([]byte(nil), s...)
			b[at+i] = byte(c)
			id, err := ParseOID(string(b))
			isHex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
			if isHex != (err == nil) {
				t.Fatalf("digit %d = %q: err %v", i, byte(c), err)
			}
			if err == nil && id.String() != string(b) {
				t.Fatalf("digit %d = %q: parsed as %s", i, byte(c), id)
			}
		}
	}
}
