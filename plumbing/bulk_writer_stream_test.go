package plumbing

import (
	"bytes"
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// TestBulkWriterAroundStream: BulkOptions.AroundStream is called once per
// streamed blob with the loose store's writer count, the blob is read
// only between that call and its restore function's, and the restore
// function is called once the blob is stored.
func TestBulkWriterAroundStream(t *testing.T) {
	s, err := loose.Open(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	var calls, restored, storing int
	w := NewBulkWriter(context.Background(), s, BulkOptions{AroundStream: func(writers int) func() {
		if writers != loose.StreamWriters {
			t.Errorf("AroundStream(%d), want loose.StreamWriters = %d", writers, loose.StreamWriters)
		}
		calls++
		return func() { restored++ }
	}})
	body := bytes.Repeat([]byte("blob line\n"), 1<<20)
	id, err := w.PutBlobFrom(&spanReader{r: bytes.NewReader(body), inSpan: func() bool { return calls == 1 && restored == 0 }, outside: &storing})
	if err != nil {
		t.Fatal(err)
	}
	if id != objects.NewBlob(objects.BLAKE3, body).ID {
		t.Fatalf("stored as %s", id)
	}
	if calls != 1 || restored != 1 || storing != 0 {
		t.Fatalf("AroundStream called %d times, restored %d times, %d reads outside its span; want 1, 1, 0", calls, restored, storing)
	}
}

// spanReader reads r and counts in outside the reads made while inSpan is
// false.
type spanReader struct {
	r       *bytes.Reader
	inSpan  func() bool
	outside *int
}

func (s *spanReader) Read(p []byte) (int, error) {
	if !s.inSpan() {
		*s.outside++
	}
	return s.r.Read(p)
}
