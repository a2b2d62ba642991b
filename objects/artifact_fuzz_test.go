package objects

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParseArtifact feeds arbitrary bytes to the .tine reader: it must
// never panic, every refusal must carry an artifact.* reason, and every
// accepted object must yield a verdict and, when it decodes, a digest; and
// the writer's encoding of anything accepted reads back as the same value.
func FuzzParseArtifact(f *testing.F) {
	f.Add([]byte(minimalV2))
	f.Add([]byte(`{"a":"\ud800"}`))
	f.Add([]byte("{\"a\":\"\xed\xa0\x80\"}"))
	f.Add([]byte(`{"n": 1e400, "n": NaN}`))
	f.Add([]byte(withIntegrity("x", "1", `{"algorithm":"sha256","digest":"`+workedDigest+`"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseArtifact(data)
		if err != nil {
			r, ok := ReasonOf(err)
			if !ok || !strings.HasPrefix(string(r), "artifact.") {
				t.Fatalf("refusal without an artifact reason: %v", err)
			}
			return
		}
		if canon, err := CanonV2(v); err == nil {
			b, err := EncodeArtifact(v)
			if err != nil {
				t.Fatalf("accepted and canonical, but not encodable: %v", err)
			}
			back, err := ParseArtifact(b)
			if err != nil {
				t.Fatalf("encoding does not read back: %v\n%s", err, b)
			}
			if again, _ := CanonV2(back); !bytes.Equal(again, canon) {
				t.Fatalf("encoding changed the value:\n%s\n%s", canon, again)
			}
		}
		res := VerifyIntegrity(v)
		if res.Reason == "" {
			t.Fatal("verdict without a reason")
		}
		if res.OK && (res.Actual == nil || res.Expected.Str != *res.Actual) {
			t.Fatal("ok verdict without matching digests")
		}
		if a, err := DecodeArtifact(v); err == nil {
			if _, err := IntegrityDigest(a.Doc); err != nil {
				t.Fatalf("decoded artifact has no digest: %v", err)
			}
		}
	})
}
