package objects

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func redactStream(t *testing.T, in []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(NewRedactReader(bytes.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRedactReaderMatchesRedactBlob: on text the stream scrubs exactly as
// RedactBlob does on the whole, also when secrets and a private-key block
// straddle chunk ends.
func TestRedactReaderMatchesRedactBlob(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 3*RedactChunk; i++ {
		switch {
		case i%997 == 0:
			fmt.Fprintf(&b, "export OPENAI_API_KEY=sk-proj-%020d\n", i)
		case i%1499 == 0:
			fmt.Fprintf(&b, "Authorization: Bearer tok%d-abcdefghijklmnop\n", i)
		default:
			fmt.Fprintf(&b, "line %d of an ordinary log, nothing secret here\n", i)
		}
		if b.Len() > RedactChunk-200 && b.Len() < RedactChunk {
			b.WriteString("-----BEGIN PRIVATE KEY-----\n")
			for j := 0; j < 40; j++ {
				b.WriteString("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n")
			}
			b.WriteString("-----END PRIVATE KEY-----\n")
		}
	}
	in := []byte(b.String())
	got := redactStream(t, in)
	want := RedactBlob(in)
	if !bytes.Equal(got, want) {
		t.Fatalf("stream and whole-blob redaction differ (%d vs %d bytes)", len(got), len(want))
	}
	for _, secret := range []string{"sk-proj-", "abcdefghijklmnop", "MIIEvQIBADAN"} {
		if bytes.Contains(got, []byte(secret)) {
			t.Errorf("%q survived redaction", secret)
		}
	}
	for _, small := range []string{"", "no newline at the end", "api_key=sk-proj-abcdefghijklmnopqrstuv\n"} {
		if got, want := redactStream(t, []byte(small)), RedactBlob([]byte(small)); !bytes.Equal(got, want) {
			t.Errorf("stream(%q) = %q, want %q", small, got, want)
		}
	}
}

// TestRedactReaderUnterminatedKey: a private-key block with no END line is
// dropped through the end of the input, as RedactBlob drops it.
func TestRedactReaderUnterminatedKey(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("before\n-----BEGIN RSA PRIVATE KEY-----\n")
	for b.Len() < 2*RedactChunk {
		b.WriteString("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n")
	}
	got := redactStream(t, b.Bytes())
	if !bytes.Equal(got, RedactBlob(b.Bytes())) {
		t.Fatalf("unterminated block: stream gives %d bytes, RedactBlob %d", len(got), len(RedactBlob(b.Bytes())))
	}
	if bytes.Contains(got, []byte("MIIEvQ")) {
		t.Fatal("key material survived")
	}
}

// TestRedactReaderBinary: chunks that are not UTF-8 pass through.
func TestRedactReaderBinary(t *testing.T) {
	in := append(bytes.Repeat([]byte{0xff, 0xfe, 0x00, '\n'}, 1000), []byte("api_key=sk-proj-abcdefghijklmnopqrstuv\n")...)
	if got := redactStream(t, in); !bytes.Equal(got, in) {
		t.Fatalf("binary chunk changed")
	}
}
