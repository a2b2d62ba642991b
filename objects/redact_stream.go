package objects

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"
	"unicode/utf8"
)

// RedactChunk is how much text RedactReader scrubs at a time. Chunks end at
// a line end, so the line-oriented rules of RedactBlob (assignments,
// bearer headers, token shapes) see whole lines.
const RedactChunk = 1 << 20

// ChunkRoom is the spare capacity a ChunkReader of this package needs in
// the caller's buffer to append a chunk there (unless a private-key block
// or a literal secret value extends the chunk): RedactChunk plus the
// longest line piece that may end it.
const ChunkRoom = RedactChunk + segmentMax

// maxPEMCarry bounds how much of an unterminated private-key block
// RedactReader holds while it looks for the block's END line; past it the
// rest of the input is dropped, as RedactBlob drops an unterminated block
// through the end of the text.
const maxPEMCarry = 8 << 20

// pemBegin finds the start of a private-key block; pemEnd its END line.
// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

var (
	pemBegin = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
	})
	pemEnd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
	})
)

// NewRedactReader returns a reader of r's bytes with secrets scrubbed as
// RedactBlob scrubs them (SPEC §1.7), in constant memory, for blobs too
// large to hold: the input is cut at line ends into chunks of about
// RedactChunk bytes, each chunk that is valid UTF-8 is scrubbed, and a
// private-key block that crosses a chunk end is carried whole into one
// chunk (up to 8 MiB; a longer or unterminated one is dropped with the
// rest of the input, as RedactBlob drops an unterminated block). Unlike
// RedactBlob, which leaves a blob holding any invalid UTF-8 untouched, the
// stream is judged chunk by chunk, so text in a mostly binary file is
// still scrubbed: a stricter rule, never a laxer one.
func NewRedactReader(r io.Reader) io.Reader {
	return newRedactReader(r)
}

// NewRedactChunks is NewRedactReader's stream as a ChunkReader: the same
// bytes, handed out a scrubbed chunk at a time in memory the caller owns,
// so a consumer that hashes and writes each chunk copies nothing.
func NewRedactChunks(r io.Reader) ChunkReader {
	return newRedactReader(r)
}

// NewRedactChunksAhead is NewRedactChunks over a file that is read ahead
// (when it is a regular file): while the caller works on a chunk, another
// goroutine reads the input that follows into buf's spare capacity, where
// the next ReadChunk puts it when the caller passes the same memory again,
// extended by the chunk, as a caller filling one large buffer does. Only
// the input's reading moves; the chunks and their scrubbing are
// NewRedactChunks' to the byte. The caller must call Settle before it
// writes into or frees any memory it has passed to ReadChunk past the
// slices returned.
func NewRedactChunksAhead(f *os.File) ChunkReader {
	z := newRedactReader(f)
	if ra := newReadAhead(f); ra != nil {
		z.ra, z.in = ra, ra
	}
	return z
}

// ChunkReader is a reader that can also append its stream to a caller's
// buffer a chunk (of a few megabytes at most) at a time, so the bytes can
// be read straight into the memory they are hashed and written from. A
// consumer uses Read or ReadChunk, not both.
type ChunkReader interface {
	io.Reader
	// ReadChunk appends the next non-empty chunk to buf and returns the
	// extended slice, in buf's memory while its capacity suffices (a
	// chunk needs about RedactChunk plus 64 KiB of room), else in new
	// memory holding buf's bytes too. At the end of the stream it
	// returns buf and io.EOF.
	ReadChunk(buf []byte) ([]byte, error)
	// Settle waits until nothing is being read into memory the caller
	// passed to ReadChunk (see NewRedactChunksAhead), after which the
	// caller may write into or free all of it.
	Settle()
}

func newRedactReader(r io.Reader) *redactReader {
	return &redactReader{in: r}
}

// segmentMax is the longest piece of a line that decides a chunk end: a
// chunk ends at the end of the line (cut every segmentMax bytes when it is
// longer) that holds the chunk's RedactChunk-th byte. The rule is fixed:
// the stored bytes, and so the blob's oid, depend on where chunks end.
const segmentMax = 64 << 10

type redactReader struct {
	lit   *Redactor // literal secret values to replace too; nil for none
	in    io.Reader
	ra    *readAhead // in, read ahead; nil when not
	carry []byte     // bytes read past the last chunk end, first of the next
	inEOF bool       // in has returned io.EOF
	buf   []byte     // Read's chunk buffer, reused so binary input allocates nothing
	out   []byte     // scrubbed bytes not yet returned by Read
	eof   bool       // the last chunk has been read
	err   error
}

// Read implements io.Reader.
func (z *redactReader) Read(p []byte) (int, error) {
	for len(z.out) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		if z.eof {
			return 0, io.EOF
		}
		z.out, z.err = z.fill(z.buf[:0])
		if cap(z.out) > cap(z.buf) {
			z.buf = z.out[:0]
		}
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}

// ReadChunk implements ChunkReader.
func (z *redactReader) ReadChunk(buf []byte) ([]byte, error) {
	start := len(buf)
	for {
		if z.err != nil {
			return buf, z.err
		}
		if z.eof {
			return buf, io.EOF
		}
		out, err := z.fill(buf)
		z.err = err
		if len(out) > start {
			return out, nil
		}
	}
}

// Settle implements ChunkReader: bytes read ahead are moved into the
// reader's own memory.
func (z *redactReader) Settle() {
	if z.ra != nil {
		z.ra.detach()
	}
}

// fill appends the next chunk to buf, extends it over a key block that it
// opens (and over a literal secret value its end may cut), and scrubs the
// appended bytes in place.
func (z *redactReader) fill(buf []byte) ([]byte, error) {
	start := len(buf)
	all, err := z.readChunk(buf, RedactChunk)
	if err != nil {
		return nil, err
	}
	for !z.eof {
		chunk := all[start:]
		pem := openPEM(chunk)
		// A chunk ending inside what may be a secret value is extended,
		// up to the same bound; past it the chunk is cut there.
		if !pem && (len(chunk) > maxPEMCarry || !z.lit.endsInValue(chunk)) {
			break
		}
		if pem && len(chunk) > maxPEMCarry {
			// RedactBlob's rule: an unterminated block runs to the end.
			z.Settle()
			return place(all, start, z.lit.Blob(chunk)), z.drain()
		}
		if all, err = z.readChunk(all, RedactChunk); err != nil {
			return nil, err
		}
	}
	chunk := all[start:]
	out := chunk
	if utf8.Valid(chunk) {
		out = RedactBlob(chunk)
	}
	if z.lit != nil {
		out = z.lit.literals(out)
	}
	if len(out) != len(chunk) || (len(out) > 0 && &out[0] != &chunk[0]) {
		// Scrubbed: the copy into all may run over the bytes read ahead.
		z.Settle()
	}
	return place(all, start, out), nil
}

// place returns all with its bytes from start replaced by out, the
// scrubbed form of those bytes: all itself when scrubbing changed nothing
// (out is the same memory), else with out copied in.
func place(all []byte, start int, out []byte) []byte {
	chunk := all[start:]
	if len(out) == len(chunk) && (len(out) == 0 || &out[0] == &chunk[0]) {
		return all
	}
	return append(all[:start], out...)
}

// readChunk appends the next piece of the input to buf: through the end
// of the line holding its limit-th byte, or through that byte's
// segmentMax-byte piece of a longer line (pieces are counted from the
// line's start, or from the piece's start when the piece begins the
// chunk), or to the end of the input. The input is read in large blocks
// straight into buf; what is read past the end is carried to the next
// call.
func (z *redactReader) readChunk(buf []byte, limit int) ([]byte, error) {
	start := len(buf)
	buf = append(buf, z.carry...)
	z.carry = z.carry[:0]
	// The piece holding byte limit-1 ends within segmentMax bytes of it.
	need := limit + segmentMax
	if cap(buf) < start+need {
		grown := make([]byte, len(buf), start+need+segmentMax)
		copy(grown, buf)
		buf = grown
	}
	// Reading no further than need keeps the carry, copied twice per
	// chunk, within segmentMax bytes.
	for len(buf)-start < need && !z.inEOF {
		n, err := z.in.Read(buf[len(buf) : start+need])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			z.inEOF = true
		} else if err != nil {
			return nil, err
		}
	}
	avail := buf[start:]
	end := len(avail)
	if last := limit - 1; last < len(avail) {
		lineStart := bytes.LastIndexByte(avail[:last], '\n') + 1
		piece := lineStart + (last-lineStart)/segmentMax*segmentMax
		pieceEnd := min(piece+segmentMax, len(avail))
		if i := bytes.IndexByte(avail[piece:pieceEnd], '\n'); i >= 0 {
			end = piece + i + 1
		} else {
			end = pieceEnd
		}
	}
	z.carry = append(z.carry, avail[end:]...)
	if end == len(avail) && z.inEOF {
		z.eof = true
	}
	// The next chunk starts at the end of this one: if the caller extends
	// this memory, its reading starts past the carry.
	if next := start + end; z.ra != nil && !z.inEOF && cap(buf) >= next+need {
		z.ra.prefetch(buf[next+len(z.carry) : next+need])
	}
	return buf[:start+end], nil
}

// drain discards the rest of the input after an unterminated key block.
func (z *redactReader) drain() error {
	z.carry = z.carry[:0]
	z.eof = true
	if z.inEOF {
		return nil
	}
	_, err := io.Copy(io.Discard, z.in)
	return err
}

// openPEM reports whether b opens a private-key block it does not close.
// Every block starts with pemBeginMarker, so the regexps run only from the
// first one (most chunks hold none: indexPEMBegin answers for them).
func openPEM(b []byte) bool {
	i := indexPEMBegin(b)
	if i < 0 {
		return false
	}
	b = b[i:]
	locs := pemBegin().FindAllIndex(b, -1)
	if len(locs) == 0 {
		return false
	}
	last := locs[len(locs)-1]
	return !pemEnd().Match(b[last[1]:])
}
