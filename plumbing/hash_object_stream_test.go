package plumbing

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestHashObjectStreamedRedacts: a blob large enough to be streamed is
// scrubbed on the way in as well; the stored bytes hold no secret and the
// reported size is the stored size.
func TestHashObjectStreamedRedacts(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t, objects.BLAKE3)
	path := filepath.Join(t.TempDir(), "big.log")
	var b bytes.Buffer
	for b.Len() < StreamThreshold+(1<<20) {
		b.WriteString("an ordinary line of a long build log\n")
		if b.Len()%(3<<20) < 40 {
			b.WriteString("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx\n")
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := HashObject(ctx, r, HashObjectOptions{Write: true, Paths: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := objects.ParseOID(res.Objects[0].OID)
	if err != nil {
		t.Fatal(err)
	}
	rc, size, err := r.Loose().OpenBlob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	stored, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored), "sk-proj-abcdefghijklmnopqrstuvwx") || !strings.Contains(string(stored), "[REDACTED]") {
		t.Fatal("streamed blob kept the secret")
	}
	if int64(len(stored)) != size || res.Objects[0].Size != len(stored) {
		t.Fatalf("sizes: stored %d, OpenBlob %d, reported %d", len(stored), size, res.Objects[0].Size)
	}
	if !bytes.Equal(stored, objects.RedactBlob(b.Bytes())) {
		t.Fatal("streamed redaction differs from whole-blob redaction on plain text")
	}
}
