package objects

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// aheadInput is text of short lines with secrets, binary runs and
// private-key blocks, some of whose BEGIN markers straddle the offsets
// where the first reads ahead start (the first chunk's own reading ends
// at ChunkRoom; later ones a chunk or so apart) and some of which stay
// open.
func aheadInput(rng *rand.Rand, round int) []byte {
	key := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
	var b bytes.Buffer
	size := 2*RedactChunk + rng.IntN(5*RedactChunk)
	marks := []int{ChunkRoom - 3 - round, 2*ChunkRoom - 7*round, RedactChunk + ChunkRoom - 11}
	for b.Len() < size {
		for _, m := range marks {
			if b.Len() <= m && m < b.Len()+60 {
				b.Write(bytes.Repeat([]byte{'.'}, m-b.Len()))
				b.WriteString(key)
			}
		}
		switch k := rng.IntN(100); {
		case k < 3:
			writeRandom(&b, rng, rng.IntN(8<<10))
		case k < 6:
			b.WriteString("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx\n")
		case k < 7:
			b.WriteString(key)
		case k < 8 && round%4 == 3:
			b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n") // may stay open
		default:
			writeLogLine(&b, rng)
		}
	}
	if round%2 == 1 {
		// Binary from here on: chunks that are not UTF-8 are not scrubbed.
		writeRandom(&b, rng, RedactChunk)
	}
	return b.Bytes()
}

// TestRedactChunksAheadMatchChunks: reading the file ahead changes where
// the input is read, never the chunks: NewRedactChunksAhead gives
// NewRedactChunks' bytes to the byte, whether the caller extends one
// buffer (the bytes read ahead are where the next chunk wants them), puts
// each chunk at the start of the same buffer (they are copied there), or
// gives too little room (the chunk comes in new memory), and with key
// blocks across the places where the reading ahead starts.
func TestRedactChunksAheadMatchChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	dir := t.TempDir()
	for round := range 4 {
		in := aheadInput(rng, round)
		want := readChunks(t, NewRedactChunks(bytes.NewReader(in)), nil)
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, in, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"extend", "reuse", "small"} {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			cr := NewRedactChunksAhead(f)
			if cr.(*redactReader).ra == nil {
				t.Fatal("a regular file is not read ahead")
			}
			var buf []byte
			switch mode {
			case "extend":
				buf = make([]byte, 0, len(in)+maxPEMCarry+2*ChunkRoom)
			case "reuse":
				buf = make([]byte, 0, maxPEMCarry+4*ChunkRoom)
			case "small":
				buf = make([]byte, 0, ChunkRoom/2)
			}
			got := readChunks(t, cr, buf)
			cr.Settle()
			f.Close()
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d, %s: read ahead gives %d bytes, without %d", round, mode, len(got), len(want))
			}
		}
	}
}

// readChunks reads cr to its end. With buf nil every chunk goes to new
// memory; with room in buf, "extend" mode (buf's capacity exceeds the
// input) appends each chunk to the one before, otherwise each chunk is
// put at the start of buf.
func readChunks(t *testing.T, cr ChunkReader, buf []byte) []byte {
	t.Helper()
	var all []byte
	extend := buf != nil && cap(buf) > maxPEMCarry+4*ChunkRoom
	for {
		next, err := cr.ReadChunk(buf)
		if err == io.EOF {
			break
		}
		if err != nil || len(next) <= len(buf) {
			t.Fatalf("ReadChunk = %d bytes after %d, %v", len(next), len(buf), err)
		}
		all = append(all, next[len(buf):]...)
		switch {
		case extend:
			buf = next
		case buf != nil:
			buf = buf[:0]
		}
	}
	return all
}

// TestReadAheadOnlyRegularFiles: a pipe is not read ahead, as a read from
// it may block until its writer writes and Settle would wait with it.
func TestReadAheadOnlyRegularFiles(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if ra := newReadAhead(r); ra != nil {
		t.Fatal("a pipe is read ahead")
	}
}
