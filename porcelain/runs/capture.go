package runs

import (
	"io"
	"sync"
)

// DefaultMaxCapture bounds each captured stream of a recorded command.
const DefaultMaxCapture = 8 << 20

// capture keeps the first max bytes written to it and counts the rest, so a
// chatty command cannot exhaust memory while its output still streams live.
type capture struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

// Write implements io.Writer; it never fails, so the live stream it is
// teed with keeps flowing.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.max - len(c.buf); room > 0 {
		if len(p) < room {
			room = len(p)
		}
		c.buf = append(c.buf, p[:room]...)
	}
	return len(p), nil
}

// bytes returns the captured prefix and whether output was cut off.
func (c *capture) bytes() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf, c.total > int64(len(c.buf))
}

// teeWriter writes to the live stream and the capture; a failing live
// stream (a closed terminal) does not stop the capture or the command.
type teeWriter struct {
	live io.Writer
	cap  *capture
}

// Write implements io.Writer.
func (t *teeWriter) Write(p []byte) (int, error) {
	t.cap.Write(p)
	if t.live != nil {
		_, _ = t.live.Write(p)
	}
	return len(p), nil
}
