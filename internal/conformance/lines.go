package conformance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one protocol line. The largest suite input is the
// 256 MiB+ pack of 16-bounds, which the runner sends as base64 (about
// 360 MB); 1 GiB leaves room without letting a runaway writer exhaust memory.
const MaxLineBytes = 1 << 30

// LineReader reads LF-terminated lines of bounded length.
type LineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// NewLineReader returns a reader of lines at most limit bytes long (the
// line end excluded); limit <= 0 means MaxLineBytes.
func NewLineReader(r io.Reader, limit int) *LineReader {
	if limit <= 0 {
		limit = MaxLineBytes
	}
	return &LineReader{r: bufio.NewReaderSize(r, 1<<20), max: limit}
}

// Next returns the next line without its LF (and without a CR before it).
// The slice is valid until the next call. At the end of input it returns
// io.EOF; a final line without LF is still returned. A line over the limit
// is consumed and reported as ErrLineTooLong.
func (l *LineReader) Next() ([]byte, error) {
	if cap(l.buf) > 64<<20 {
		l.buf = nil // do not pin the memory of one huge line for the whole run
	}
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+2 { // +2: room for the CR LF, trimmed below
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			return l.finish(tooLong)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if !tooLong && len(l.buf) == 0 {
				return nil, io.EOF
			}
			return l.finish(tooLong)
		default:
			return nil, err
		}
	}
}

func (l *LineReader) finish(tooLong bool) ([]byte, error) {
	line := trimEOL(l.buf)
	if tooLong || len(line) > l.max {
		return nil, fmt.Errorf("%w (limit %d bytes)", ErrLineTooLong, l.max)
	}
	return line, nil
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
