package objects

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

// tpFrame frames an arbitrary manifest body correctly (magic, its digest,
// zlib), so a test can reach the manifest rules with bodies a writer would
// never produce.
func tpFrame(t testing.TB, body string) []byte {
	t.Helper()
	sum := sha256.Sum256([]byte(body))
	var buf bytes.Buffer
	buf.WriteString(PackMagic)
	buf.Write(sum[:])
	zw := zlib.NewWriter(&buf)
	if _, err := zw.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestInspectPackOversizedFirst is bounds.pack.over-256-mib: a frame one
// byte past the cap is refused by its length alone, before the magic is
// even read, and a frame at the cap is not refused for its size.
func TestInspectPackOversizedFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 256 MiB frame")
	}
	// Fresh zeroed pages are not touched beyond the prefix, so this costs
	// address space, not memory.
	frame := make([]byte, MaxPackBytes+1)
	copy(frame, PackMagic)
	if _, err := InspectPack(frame, SHA256); !HasReason(err, ReasonPackOversized) {
		t.Fatalf("real magic: %v", err)
	}
	copy(frame, "NOTAPACK!!")
	if _, err := InspectPack(frame, SHA256); !HasReason(err, ReasonPackOversized) {
		t.Fatalf("bad magic: %v", err)
	}
	copy(frame, PackMagic)
	if _, err := InspectPack(frame[:MaxPackBytes], SHA256); HasReason(err, ReasonPackOversized) || err == nil {
		t.Fatalf("at the cap: %v, want a refusal of the zero stream, not of the size", err)
	}
}

func TestInspectPackFraming(t *testing.T) {
	good := tpFrame(t, `{"objects":[],"shallow":[],"version":1}`)
	if _, err := InspectPack(good, SHA256); err != nil {
		t.Fatal(err)
	}
	corruptAdler := bytes.Clone(good)
	corruptAdler[len(corruptAdler)-1] ^= 1
	for _, tc := range []struct {
		name   string
		frame  []byte
		reason Reason
	}{
		{"empty", nil, ReasonPackBadMagic},
		{"41 bytes", good[:41], ReasonPackBadMagic},
		{"42 bytes, no stream", good[:42], ReasonPackTruncatedOrTrailing},
		{"stream header only", good[:44], ReasonPackTruncatedOrTrailing},
		{"no adler trailer", good[:len(good)-4], ReasonPackTruncatedOrTrailing},
		{"one trailing byte", append(bytes.Clone(good), 0), ReasonPackTruncatedOrTrailing},
		{"a second stream", append(bytes.Clone(good), good[PackHeaderSize:]...), ReasonPackTruncatedOrTrailing},
		{"bad adler", corruptAdler, ReasonPackInvalidCompression},
		{"raw deflate", append(bytes.Clone(good[:PackHeaderSize]), 0x03, 0x00), ReasonPackInvalidCompression},
		{"wrong digest", append(append([]byte(PackMagic), make([]byte, 32)...), good[PackHeaderSize:]...), ReasonPackChecksumMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := InspectPack(tc.frame, SHA256); !HasReason(err, tc.reason) {
				t.Fatalf("error %v, want %s", err, tc.reason)
			}
		})
	}
	if _, err := InspectPack(good, "md5"); err == nil {
		t.Fatal("unknown profile accepted")
	}
}

// TestInspectPackBomb inflates a stream that claims far more than the
// bound: the reader stops at the bound instead of allocating the rest.
func TestInspectPackBomb(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(PackMagic)
	buf.Write(make([]byte, 32))
	zw, _ := zlib.NewWriterLevel(&buf, 9)
	zeros := make([]byte, 1<<20)
	for range 64 { // 64 MiB of zeros compress to about 64 KiB
		zw.Write(zeros)
	}
	zw.Close()
	if _, err := inspectPack(buf.Bytes(), SHA256, 1<<20, DefaultPackLimits); !HasReason(err, ReasonPackOversized) {
		t.Fatalf("error %v, want pack.oversized", err)
	}
}

func TestInspectPackManifestRules(t *testing.T) {
	blob := NewBlob(SHA256, []byte("hello\n"))
	data := base64.StdEncoding.EncodeToString(blob.Stored())
	entry := `{"data":"` + data + `","id":"` + blob.ID.String() + `"}`
	wrapped := data[:20] + "\n" + data[20:]
	// "aGVsbG8=" with non-zero padding bits spells the same bytes.
	loosePad := base64.StdEncoding.EncodeToString(NewBlob(SHA256, []byte("hi")).Stored())
	loosePad = loosePad[:len(loosePad)-2] + "p="
	b3 := NewBlob(BLAKE3, []byte("hello\n")).ID.String()
	for _, tc := range []struct {
		name, body string
		reason     Reason
	}{
		{"not json", `{"objects":`, ReasonPackManifestMalformed},
		{"array", `[]`, ReasonPackManifestMalformed},
		{"too deep", strings.Repeat("[", 600) + strings.Repeat("]", 600), ReasonPackManifestMalformed},
		{"whitespace", `{"objects":[], "shallow":[],"version":1}`, ReasonPackManifestNonCanonical},
		{"duplicate key", `{"objects":[],"objects":[],"shallow":[],"version":1}`, ReasonPackManifestNonCanonical},
		{"huge int", `{"objects":[],"shallow":[],"version":100000000000000000000}`, ReasonPackManifestNonCanonical},
		{"missing key", `{"objects":[],"version":1}`, ReasonPackManifestKeySet},
		{"version float", `{"objects":[],"shallow":[],"version":1.5}`, ReasonPackVersionUnsupported},
		{"version string", `{"objects":[],"shallow":[],"version":"1"}`, ReasonPackVersionUnsupported},
		{"shallow object", `{"objects":[],"shallow":{},"version":1}`, ReasonPackArraysInvalid},
		{"entry not object", `{"objects":[1],"shallow":[],"version":1}`, ReasonPackEntryShape},
		{"entry missing id", `{"objects":[{"data":"","idx":""}],"shallow":[],"version":1}`, ReasonPackEntryShape},
		{"entry id not string", `{"objects":[{"data":"` + data + `","id":1}],"shallow":[],"version":1}`, ReasonPackEntryShape},
		{"entry line break", `{"objects":[{"data":"` + wrapped + `","id":"x"}],"shallow":[],"version":1}`, ReasonPackManifestMalformed},
		{"entry escaped line break", `{"objects":[{"data":"` + data[:20] + `\n` + data[20:] + `","id":"x"}],"shallow":[],"version":1}`, ReasonPackEntryBase64},
		{"entry url-safe", `{"objects":[{"data":"-_-_","id":"x"}],"shallow":[],"version":1}`, ReasonPackEntryBase64},
		{"entry unpadded", `{"objects":[{"data":"` + strings.TrimRight(data, "=") + `","id":"x"}],"shallow":[],"version":1}`, ReasonPackEntryBase64},
		{"entry padding bits", `{"objects":[{"data":"` + loosePad + `","id":"x"}],"shallow":[],"version":1}`, ReasonPackEntryBase64},
		{"entry bad envelope", `{"objects":[{"data":"aGk=","id":"x"}],"shallow":[],"version":1}`, ReasonPackEntryShape},
		{"entry wrong profile", `{"objects":[{"data":"` + data + `","id":"` + b3 + `"}],"shallow":[],"version":1}`, ReasonPackEntryOidMismatch},
		{"shallow not string", `{"objects":[],"shallow":[null],"version":1}`, ReasonPackShallowInvalidOid},
		{"shallow other profile", `{"objects":[],"shallow":["` + b3 + `"],"version":1}`, ReasonPackShallowInvalidOid},
		{"shallow duplicate", `{"objects":[],"shallow":["` + blob.ID.String() + `","` + blob.ID.String() + `"],"version":1}`, ReasonPackDuplicateIds},
		{"overlap", `{"objects":[` + entry + `],"shallow":["` + blob.ID.String() + `"],"version":1}`, ReasonPackShallowOverlapsObjects},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := InspectPack(tpFrame(t, tc.body), SHA256); !HasReason(err, tc.reason) {
				t.Fatalf("error %v, want %s", err, tc.reason)
			}
		})
	}
	pf, err := InspectPack(tpFrame(t, `{"objects":[`+entry+`],"shallow":[],"version":1}`), SHA256)
	if err != nil || len(pf.Objects) != 1 || pf.Objects[0].ID != blob.ID {
		t.Fatalf("valid one-blob manifest: %v", err)
	}
}

func TestInspectPackCountBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"objects":[],"shallow":[`)
	for i := range MaxPackObjects + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"blob:sha256:`)
		b.WriteString(strings.Repeat("0", 58))
		b.WriteString(string(rune('0' + i/100000%10)))
		b.WriteString(string(rune('0' + i/10000%10)))
		b.WriteString(string(rune('0' + i/1000%10)))
		b.WriteString(string(rune('0' + i/100%10)))
		b.WriteString(string(rune('0' + i/10%10)))
		b.WriteString(string(rune('0' + i%10)))
		b.WriteByte('"')
	}
	b.WriteString(`],"version":1}`)
	if _, err := InspectPack(tpFrame(t, b.String()), SHA256); !HasReason(err, ReasonPackTooManyObjects) {
		t.Fatalf("10001 shallow entries: %v", err)
	}
}
