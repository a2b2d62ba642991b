package plumbing

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingReader serves data in reads of at most chunk bytes, counting the
// calls.
type countingReader struct {
	data  []byte
	chunk int
	calls int
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.calls++
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestReadSizedOneReadAtItsSize: a file that is the size fstat gave is
// read with one read (it took two: io.ReadFull went on to see the end).
func TestReadSizedOneReadAtItsSize(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 1000)
	r := &countingReader{data: data, chunk: 1 << 20}
	got, err := readSized(r, int64(len(data)), "f")
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("readSized = %d bytes, %v", len(got), err)
	}
	if r.calls != 1 {
		t.Errorf("readSized made %d reads, want 1", r.calls)
	}
}

// TestReadSizedShortReadsGrownAndShrunk: short reads are continued, a
// file grown since its fstat is read to its end, a shrunk one to where
// it ends.
func TestReadSizedShortReadsGrownAndShrunk(t *testing.T) {
	data := []byte(strings.Repeat("abcdefgh", 100))
	for _, c := range []struct {
		name  string
		size  int64
		chunk int
	}{
		{"short reads", int64(len(data)), 7},
		{"grown", 100, 1 << 20},
		{"grown, short reads", 100, 3},
		{"shrunk", int64(len(data)) + 50, 1 << 20},
		{"empty", 0, 1 << 20},
	} {
		r := &countingReader{data: data, chunk: c.chunk}
		if c.name == "empty" {
			r.data = nil
		}
		got, err := readSized(r, c.size, "f")
		want := data
		if c.name == "empty" {
			want = nil
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: readSized = %d bytes, %v; want %d", c.name, len(got), err, len(want))
		}
	}
}

// TestReadPathInput covers the opened file's checks: missing, directory,
// a blob to stream, and a regular file read whole.
func TestReadPathInput(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(dir, "large.bin")
	if err := os.WriteFile(large, make([]byte, inlineMax+1), 0o644); err != nil {
		t.Fatal(err)
	}
	var held int64
	hold := func(n int64) bool { held += n; return true }
	if data, h, err := readPathInput(small, true, hold); err != nil || string(data) != `{"a":1}` || h != 7 || held != 7 {
		t.Errorf("small: %q, held %d/%d, %v", data, h, held, err)
	}
	if data, _, err := readPathInput(large, true, hold); err != nil || data != nil {
		t.Errorf("large blob: %d bytes, %v; want nil data to stream", len(data), err)
	}
	if data, _, err := readPathInput(large, false, hold); err != nil || len(data) != inlineMax+1 {
		t.Errorf("large json input: %d bytes, %v; want it read whole", len(data), err)
	}
	if _, _, err := readPathInput(filepath.Join(dir, "missing"), true, hold); !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "missing") {
		t.Errorf("missing: %v", err)
	}
	if _, _, err := readPathInput(dir, true, hold); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}
