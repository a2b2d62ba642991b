package objects

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// testEnv is a command environment with secret-named and ordinary
// variables.
var testEnv = []string{
	"API_KEY=abc123xyz",
	"GITHUB_TOKEN=tok-0123456789",
	"DATABASE_DSN=host=db user=app",
	"SHORT_SECRET=abc",
	"PWD=/home/user/project",
	"HOME=/home/user",
	"EDITOR=vim-with-plugins",
}

// TestEnvRedactorValues pins issue 10 item 8: the value of a secret-named
// variable is replaced wherever it appears, even alone on a line; short
// values, PWD and ordinary variables are kept (the documented rule).
func TestEnvRedactorValues(t *testing.T) {
	r := NewEnvRedactor(testEnv)
	in := "abc123xyz\nusing tok-0123456789 now\nhost=db user=app\nabc\n/home/user/project vim-with-plugins\n"
	want := "[REDACTED]\nusing [REDACTED] now\n[REDACTED]\nabc\n/home/user/project vim-with-plugins\n"
	if got := string(r.Blob([]byte(in))); got != want {
		t.Errorf("Blob = %q, want %q", got, want)
	}
	if got := string(r.Blob([]byte(want))); got != want {
		t.Errorf("Blob is not idempotent: %q", got)
	}
	v, n := r.Value(ObjectValue(
		Member{Key: "argv", Value: Array(String("curl"), String("-H"), String("X-Key: abc123xyz"))},
		Member{Key: "cwd", Value: String("/home/user/project")},
	))
	argv, _ := v.Get("argv")
	if argv.Array[2].Str != "X-Key: [REDACTED]" || n != 1 {
		t.Errorf("Value argv = %v (%d replaced), want the key replaced once", argv, n)
	}
	if cwd, _ := v.Get("cwd"); cwd.Str != "/home/user/project" {
		t.Errorf("Value changed cwd: %q", cwd.Str)
	}
	var nilR *Redactor
	if got := string(nilR.Blob([]byte("abc123xyz api_key=sk-proj-0123456789abcdefghij\n"))); got != "abc123xyz api_key=[REDACTED]\n" {
		t.Errorf("nil Redactor Blob = %q, want RedactBlob's result", got)
	}
}

// TestEnvRedactorStream: the streaming redactor replaces values that
// straddle chunk and buffer ends, and URL passwords, as Blob does whole.
func TestEnvRedactorStream(t *testing.T) {
	r := NewEnvRedactor(testEnv)
	var b strings.Builder
	for b.Len() < 3*RedactChunk {
		b.WriteString(strings.Repeat("x", 65531))
		b.WriteString("abc123xyz")
		if b.Len()%7 == 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\npostgres://app:hunter2@db/main\ntok-0123456789")
	in := []byte(b.String())
	out, err := io.ReadAll(r.Reader(bytes.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("abc123xyz")) || bytes.Contains(out, []byte("hunter2")) || bytes.Contains(out, []byte("tok-0123456789")) {
		t.Fatal("a secret value survived the stream")
	}
	if want := r.Blob(in); !bytes.Equal(out, want) {
		t.Fatalf("stream output (%d bytes) differs from Blob (%d bytes)", len(out), len(want))
	}
}
