package objects

import (
	"bufio"
	"io"
	"regexp"
	"sync"
	"unicode/utf8"
)

// RedactChunk is how much text RedactReader scrubs at a time. Chunks end at
// a line end, so the line-oriented rules of RedactBlob (assignments,
// bearer headers, token shapes) see whole lines.
const RedactChunk = 1 << 20

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

func newRedactReader(r io.Reader) *redactReader {
	return &redactReader{in: bufio.NewReaderSize(r, 64<<10)}
}

type redactReader struct {
	lit *Redactor // literal secret values to replace too; nil for none
	in  *bufio.Reader
	buf []byte // the chunk being read, reused so binary input allocates nothing
	out []byte // scrubbed bytes not yet returned
	eof bool
	err error
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
		z.fill()
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}

// fill reads the next chunk, extends it over a key block that it opens
// (and over a literal secret value its end may cut), and scrubs it into
// z.out.
func (z *redactReader) fill() {
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
func (z *redactReader) readChunk(buf []byte, limit int) ([]byte, error) {
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
func (z *redactReader) drain() {
	if _, err := io.Copy(io.Discard, z.in); err != nil {
		z.err = err
	}
	z.eof = true
}

// openPEM reports whether b opens a private-key block it does not close.
func openPEM(b []byte) bool {
	locs := pemBegin().FindAllIndex(b, -1)
	if len(locs) == 0 {
		return false
	}
	last := locs[len(locs)-1]
	return !pemEnd().Match(b[last[1]:])
}
