package objects

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// bufioRedactReader is the line-by-line reader NewRedactReader used before
// it read in blocks (issue 13): kept here as the reference the block
// reader must match byte for byte, since where chunks end decides the
// stored bytes and so a blob's oid.
type bufioRedactReader struct {
	lit *Redactor // literal secret values to replace too; nil for none
	in  *bufio.Reader
	buf []byte // the chunk being read, reused so binary input allocates nothing
	out []byte // scrubbed bytes not yet returned
	eof bool
	err error
}

// Read implements io.Reader.
func (z *bufioRedactReader) Read(p []byte) (int, error) {
	for len(z.out) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		if z.eof {
			return 0, io.EOF
		}
		z.fill()
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}

// fill reads the next chunk, extends it over a key block that it opens
// (and over a literal secret value its end may cut), and scrubs it into
// z.out.
func (z *bufioRedactReader) fill() {
	chunk, err := z.readChunk(z.buf[:0], RedactChunk)
	z.buf = chunk
	if err != nil {
		z.err = err
		return
	}
	for !z.eof {
		pem := openPEM(chunk)
		// A chunk ending inside what may be a secret value is extended,
		// up to the same bound; past it the chunk is cut there.
		if !pem && (len(chunk) > maxPEMCarry || !z.lit.endsInValue(chunk)) {
			break
		}
		if pem && len(chunk) > maxPEMCarry {
			// RedactBlob's rule: an unterminated block runs to the end.
			z.out = z.lit.Blob(chunk)
			z.drain()
			return
		}
		if chunk, err = z.readChunk(chunk, RedactChunk); err != nil {
			z.err = err
			return
		}
		z.buf = chunk
	}
	if utf8.Valid(chunk) {
		z.out = RedactBlob(chunk)
	} else {
		z.out = chunk
	}
	if z.lit != nil {
		z.out = z.lit.literals(z.out)
	}
}

// readChunk appends up to about limit bytes to buf, ending at a line end
// when one comes within the limit (a longer line is cut at the limit).
func (z *bufioRedactReader) readChunk(buf []byte, limit int) ([]byte, error) {
	start := len(buf)
	for len(buf)-start < limit {
		line, err := z.in.ReadSlice('\n')
		buf = append(buf, line...)
		if err == nil {
			continue
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			z.eof = true
			return buf, nil
		}
		return nil, err
	}
	return buf, nil
}

// drain discards the rest of the input after an unterminated key block.
func (z *bufioRedactReader) drain() {
	if _, err := io.Copy(io.Discard, z.in); err != nil {
		z.err = err
	}
	z.eof = true
}

// TestRedactChunksMatchLineReader: the block reader cuts the input where
// the line-by-line reader did, on inputs mixing short lines, lines longer
// than segmentMax (cut into pieces), binary runs, secrets and key blocks
// across chunk ends, so every blob keeps the oid it had.
func TestRedactChunksMatchLineReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 6))
	secret := []byte("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx\n")
	key := []byte("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n")
	for round := range 12 {
		var b bytes.Buffer
		size := RedactChunk/2 + rng.IntN(4*RedactChunk)
		for b.Len() < size {
			switch k := rng.IntN(100); {
			case k < 2:
				// A line of exactly segmentMax bytes, and one just over.
				b.Write(bytes.Repeat([]byte{'x'}, segmentMax-1+rng.IntN(3)))
				b.WriteByte('\n')
			case k < 5:
				b.Write(bytes.Repeat([]byte{'y'}, rng.IntN(3*segmentMax)))
			case k < 8:
				writeRandom(&b, rng, rng.IntN(8<<10))
			case k < 10:
				b.Write(secret)
			case k < 11:
				b.Write(key)
			case k < 12 && round%3 == 0:
				b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n") // may stay open
			default:
				writeLogLine(&b, rng)
			}
		}
		if round%2 == 1 {
			b.Truncate(b.Len() - 1) // no final newline
		}
		in := b.Bytes()
		want, err := io.ReadAll(&bufioRedactReader{in: bufio.NewReaderSize(bytes.NewReader(in), 64<<10)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(NewRedactReader(iotestHalf{bytes.NewReader(in)}))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d (%d bytes): block reader gives %d bytes, line reader %d", round, len(in), len(got), len(want))
		}
		// Appending chunk after chunk to one buffer rebuilds the stream;
		// appending each to an emptied buffer of ample room keeps it in
		// that buffer's memory.
		var chunks []byte
		cr := NewRedactChunks(bytes.NewReader(in))
		for {
			next, err := cr.ReadChunk(chunks)
			if err == io.EOF {
				break
			}
			if err != nil || len(next) <= len(chunks) {
				t.Fatalf("round %d: ReadChunk = %d bytes after %d, %v", round, len(next), len(chunks), err)
			}
			chunks = next
		}
		room := make([]byte, 0, maxPEMCarry+4*RedactChunk)
		cr = NewRedactChunks(bytes.NewReader(in))
		var again []byte
		for {
			next, err := cr.ReadChunk(room[:3])
			if err == io.EOF {
				break
			}
			if err != nil || &next[0] != &room[:1][0] {
				t.Fatalf("round %d: a chunk left the caller's buffer (%v)", round, err)
			}
			again = append(again, next[3:]...)
		}
		if !bytes.Equal(again, want) {
			t.Fatalf("round %d: chunks in place give %d bytes, line reader %d", round, len(again), len(want))
		}
		if !bytes.Equal(chunks, want) {
			t.Fatalf("round %d: chunks give %d bytes, line reader %d", round, len(chunks), len(want))
		}
	}
}

// TestRedactReadChunkCutsLikeLineReader: chunk by chunk, for limits from
// one byte to past segmentMax, the block reader ends each chunk exactly
// where the line-by-line reader did.
func TestRedactReadChunkCutsLikeLineReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	var b bytes.Buffer
	for b.Len() < 6*segmentMax {
		switch k := rng.IntN(10); {
		case k == 0:
			b.Write(bytes.Repeat([]byte{'x'}, segmentMax-1+rng.IntN(3)))
			b.WriteByte('\n')
		case k == 1:
			b.Write(bytes.Repeat([]byte{'y'}, rng.IntN(3*segmentMax)))
		default:
			b.Write(bytes.Repeat([]byte{'z'}, rng.IntN(200)))
			b.WriteByte('\n')
		}
	}
	in := b.Bytes()
	for _, limit := range []int{1, 2, 100, 4093, segmentMax - 1, segmentMax, segmentMax + 1, 3*segmentMax + 5} {
		old := &bufioRedactReader{in: bufio.NewReaderSize(bytes.NewReader(in), 64<<10)}
		cur := newRedactReader(iotestHalf{bytes.NewReader(in)})
		for i := 0; !old.eof || !cur.eof; i++ {
			want, err1 := old.readChunk(nil, limit)
			got, err2 := cur.readChunk(nil, limit)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !bytes.Equal(got, want) && !(old.eof && cur.eof && len(want) == 0 && len(got) == 0) {
				t.Fatalf("limit %d, chunk %d: %d bytes, want %d", limit, i, len(got), len(want))
			}
			if i > len(in) {
				t.Fatalf("limit %d: no end", limit)
			}
		}
	}
}

// iotestHalf returns at most half of what is asked (and at least one
// byte), so the block reader is tested against short reads too.
type iotestHalf struct{ r io.Reader }

func (h iotestHalf) Read(p []byte) (int, error) {
	return h.r.Read(p[:max(1, len(p)/2)])
}

// writeRandom writes n random bytes from rng to b.
func writeRandom(b *bytes.Buffer, rng *rand.Rand, n int) {
	for range n {
		b.WriteByte(byte(rng.Uint32()))
	}
}

// writeLogLine writes to b a random-length start of an ordinary build
// log line, ended by a newline.
func writeLogLine(b *bytes.Buffer, rng *rand.Rand) {
	b.WriteString("an ordinary line of a build log, nothing secret\n"[:1+rng.IntN(48)])
	b.WriteByte('\n')
}
