package s3client

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tinehq/tine/remote/wire"
)

// stallTimeout bounds how long a try's body may go without a byte moving:
// an upload the server stopped reading, or an answer whose headers came
// and whose body stopped. The response-header timeout covers the wait
// between them. Neither a slow upload nor a slow download is cut, only
// one that moves nothing for this long. A variable so a test can shorten
// it.
var stallTimeout = time.Minute

// stallError is the cause of a try ended by stallTimeout.
type stallError struct{ d time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("no byte of the body moved for %s: the server stalled", e.d)
}

// Timeout reports a timeout, as net.Error does.
func (e *stallError) Timeout() bool { return true }

// stallGuard ends one try (cancelling its context with a *stallError)
// when its body moves nothing for stallTimeout. The timer runs only while
// tine waits on the server: from the upload's first read to its last (the
// transport writes each piece between two reads), and within each read of
// the answer's body, never while the caller pauses between reads.
type stallGuard struct {
	mu     sync.Mutex
	timer  *time.Timer
	ended  bool
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// newStallGuard returns the guard of a try under ctx, its timer stopped;
// the try's request uses g.ctx.
func newStallGuard(ctx context.Context) *stallGuard {
	g := &stallGuard{}
	g.ctx, g.cancel = context.WithCancelCause(ctx)
	d := stallTimeout
	g.timer = time.AfterFunc(d, func() { g.cancel(&stallError{d: d}) })
	g.timer.Stop()
	return g
}

// touch notes that bytes moved: the timer starts over.
func (g *stallGuard) touch() {
	g.mu.Lock()
	if !g.ended {
		g.timer.Reset(stallTimeout)
	}
	g.mu.Unlock()
}

// pause stops the timer until the next touch.
func (g *stallGuard) pause() {
	g.mu.Lock()
	g.timer.Stop()
	g.mu.Unlock()
}

// end releases the try's context; nothing is timed any more.
func (g *stallGuard) end() {
	g.mu.Lock()
	g.ended = true
	g.timer.Stop()
	g.mu.Unlock()
	g.cancel(nil)
}

// explain returns err, or the *stallError that caused it.
func (g *stallGuard) explain(err error) error {
	if s, ok := context.Cause(g.ctx).(*stallError); ok && err != nil {
		return s
	}
	return err
}

// guardedBody is an answer's body under a stallGuard, ended on Close.
type guardedBody struct {
	rc io.ReadCloser
	g  *stallGuard
}

// Read times only its own wait: the caller's pauses between reads are
// not the server's stall. Its errors are bounded and escaped
// (wire.TransportError): net/http quotes a malformed chunked trailer, up
// to 4 KiB of the server's bytes, into the body's read error, which a
// download, a listing or an error answer passes on to the user.
func (b *guardedBody) Read(p []byte) (int, error) {
	b.g.touch()
	n, err := b.rc.Read(p)
	b.g.pause()
	if err != nil && err != io.EOF {
		err = wire.TransportError(b.g.explain(err))
	}
	return n, err
}

func (b *guardedBody) Close() error {
	err := b.rc.Close()
	b.g.end()
	return err
}
