package loose_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// TestLooseStreamReadAheadRedacts: a file streamed through the redacting
// reader that reads ahead into the store's blocks is stored as the plain
// redacting reader scrubs it, byte for byte and under the same oid, with
// private-key blocks over a third of the text (so keys straddle chunk
// ends, the places where reading ahead starts, the pieces handed to the
// writers and the moves to a fresh block), one key block longer than a block
// (the chunk comes in new memory and is copied in), through direct I/O
// and the page cache.
func TestLooseStreamReadAheadRedacts(t *testing.T) {
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
	var b strings.Builder
	for i := 0; b.Len() < 2*loose.BlockCap+objects.ChunkRoom; i++ {
		fmt.Fprintf(&b, "line %d of a build log, token=%d nothing secret\n", i, i*7)
		if i%120 == 0 {
			// A third of the text is key blocks of 40 lines.
			b.WriteString(key[:28])
			for range 40 {
				b.WriteString(key[28 : len(key)-26])
			}
			b.WriteString(key[len(key)-26:])
		}
		if i == 40000 {
			b.WriteString("-----BEGIN PRIVATE KEY-----\n")
			for end := b.Len() + loose.BlockCap; b.Len() < end; {
				b.WriteString("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n")
			}
			b.WriteString("-----END PRIVATE KEY-----\n")
		}
	}
	in := []byte(b.String())
	want, err := io.ReadAll(objects.NewRedactReader(bytes.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(want, []byte("MIIEvQ")) {
		t.Fatal("the plain redacting reader kept key material")
	}
	p := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			defer loose.SetDirectIO(loose.SetDirectIO(direct))
			s := newLoose(t, objects.BLAKE3)
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			id, err := s.PutBlobFrom(t.Context(), objects.NewRedactChunksAhead(f))
			if err != nil {
				t.Fatal(err)
			}
			if wantID := objects.NewBlob(objects.BLAKE3, want).ID; id != wantID {
				t.Fatalf("oid %s, want %s", id, wantID)
			}
			got, err := s.Get(t.Context(), id)
			if err != nil || !bytes.Equal(got.Body, want) {
				t.Fatalf("stored body differs (%v)", err)
			}
			assertNoTemp(t, s)
		})
	}
}
