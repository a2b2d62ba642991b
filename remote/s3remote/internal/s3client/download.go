package s3client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SizeError is a download refused for its size: the object is larger
// than the caller's limit.
type SizeError struct {
	// Size is the size the answer announced, or -1 when it announced
	// none and its body went past Limit.
	Size, Limit int64
}

func (e *SizeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("more than %d bytes", e.Limit)
	}
	return fmt.Sprintf("%d bytes, limit %d", e.Size, e.Limit)
}

// resumeProgress is how far a body must move for its break to start a
// new count of breaks in a row: a server or middlebox that cuts every
// connection after a few bytes fails the download after MaxAttempts
// resumptions instead of costing one request per few bytes.
const resumeProgress = 1 << 20

// ResumeError is a resumption refused or failed: Offset bytes were kept,
// and Err is the failure of the ranged GetObject of the rest.
type ResumeError struct {
	Offset int64
	Err    error
}

func (e *ResumeError) Error() string {
	return fmt.Sprintf("resume after %d bytes: %v", e.Offset, e.Err)
}

// Unwrap returns the resumption's failure.
func (e *ResumeError) Unwrap() error { return e.Err }

// Download copies key into w, refusing more than limit bytes, and returns
// the bytes written and the key's ETag. A body that breaks part-way (a
// connection cut or reset, a truncated answer, a stalled server) is
// resumed where it broke: a ranged GetObject of the rest, bound by
// If-Match to the ETag of the first answer, so every byte written is of
// one version of the key. Each resumption waits the retryer's delay and
// takes from its budget. The download fails with the break after
// MaxAttempts breaks in a row (a body that moved resumeProgress bytes
// before it broke ends a row), after a break the retryer does not retry, on a
// spent budget or an ended ctx (the error then matches ctx's cause), and
// with a *ResumeError when a resumption is refused. Only an answer that
// announced its size and ETag is resumed; a failure of w is never
// retried.
func (c *Client) Download(ctx context.Context, bucket, key string, w io.Writer, limit int64) (int64, string, error) {
	obj, err := c.Get(ctx, bucket, key)
	if err != nil {
		return 0, "", err
	}
	if obj.Size > limit {
		obj.Body.Close()
		return 0, "", &SizeError{Size: obj.Size, Limit: limit}
	}
	size, etag := obj.Size, obj.ETag
	var done int64
	for breaks := 0; ; {
		sw := &sinkWriter{w: w}
		n, err := io.Copy(sw, io.LimitReader(obj.Body, limit+1-done))
		obj.Body.Close()
		done += n
		if err == nil && size >= 0 && done < size {
			// A resumed answer without a length ends at the cut.
			err = io.ErrUnexpectedEOF
		}
		if err == nil {
			break
		}
		if sw.err != nil {
			return done, "", sw.err
		}
		if n >= resumeProgress {
			breaks = 0
		}
		breaks++
		broken := fmt.Errorf("body broken after %d bytes: %w", done, err)
		if ctx.Err() != nil {
			return done, "", fmt.Errorf("%w (%w)", broken, context.Cause(ctx))
		}
		if size < 0 || etag == "" || breaks >= c.retryer.MaxAttempts() {
			return done, "", broken
		}
		if obj, err = c.resume(ctx, bucket, key, etag, done, breaks, err); err != nil {
			return done, "", err
		}
	}
	if done > limit {
		return done, "", &SizeError{Size: -1, Limit: limit}
	}
	if size >= 0 && done != size {
		return done, "", fmt.Errorf("answer of %d bytes announced %d", done, size)
	}
	return done, etag, nil
}

// sinkWriter is w, remembering its failure, so Download can tell a
// failure of its destination (never retried) from one of the body.
type sinkWriter struct {
	w   io.Writer
	err error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// resume asks for key from byte offset on after cause broke a body:
// when the retryer retries cause and its budget allows, it waits its delay
// for try, then sends a ranged GetObject of version etag. The retry token
// is settled by that answer's headers.
func (c *Client) resume(ctx context.Context, bucket, key, etag string, offset int64, try int, cause error) (*Object, error) {
	broken := newConnError(ctx, cause)
	if !c.retryer.IsErrorRetryable(broken) {
		return nil, fmt.Errorf("body broken after %d bytes: %w", offset, cause)
	}
	release, spent := c.retryToken(ctx, broken)
	if spent != nil {
		return nil, fmt.Errorf("body broken after %d bytes: %w", offset, spent)
	}
	wait, err := c.retryer.RetryDelay(try, broken)
	if err != nil {
		return nil, fmt.Errorf("body broken after %d bytes: %w (no retry: %v)", offset, cause, err)
	}
	t := time.NewTimer(wait)
	select {
	case <-ctx.Done():
		t.Stop()
		return nil, fmt.Errorf("body broken after %d bytes: %w (%w)", offset, cause, context.Cause(ctx))
	case <-t.C:
	}
	obj, err := c.getFrom(ctx, bucket, key, offset, etag)
	_ = release(err) // the budget's bookkeeping, as in send
	if err != nil {
		return nil, &ResumeError{Offset: offset, Err: err}
	}
	return obj, nil
}

// getFrom starts reading version etag of key at byte offset (GetObject
// with Range and If-Match). A 206 must say it starts at offset; a 200 (a
// server that ignores ranges) has its first offset bytes skipped; either
// must carry etag.
func (c *Client) getFrom(ctx context.Context, bucket, key string, offset int64, etag string) (*Object, error) {
	var obj *Object
	r := &request{op: "GetObject", method: http.MethodGet, bucket: bucket, key: key,
		header: map[string]string{"Range": "bytes=" + strconv.FormatInt(offset, 10) + "-", "If-Match": etag}}
	err := c.send(ctx, r, func(resp *http.Response) error {
		if got := resp.Header.Get("ETag"); got != etag {
			resp.Body.Close()
			return fmt.Errorf("answer of ETag %s where %s was asked for", got, etag)
		}
		switch resp.StatusCode {
		case http.StatusPartialContent:
			if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != offset {
				resp.Body.Close()
				return fmt.Errorf("answer of range %q where bytes %d on were asked for", resp.Header.Get("Content-Range"), offset)
			}
		case http.StatusOK:
			if _, err := io.CopyN(io.Discard, resp.Body, offset); err != nil {
				resp.Body.Close()
				return newConnError(ctx, fmt.Errorf("skip the %d bytes already read: %w", offset, err))
			}
		default:
			resp.Body.Close()
			return fmt.Errorf("unexpected status %s for a ranged read", resp.Status)
		}
		size := resp.ContentLength
		if resp.StatusCode == http.StatusOK && size >= 0 {
			size -= offset
		}
		obj = &Object{Body: resp.Body, Size: size, ETag: etag}
		return nil
	})
	return obj, err
}

// rangeStart returns the first byte a Content-Range "bytes A-B/N" names.
func rangeStart(h string) (int64, bool) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	a, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(a, 10, 64)
	return n, err == nil && n >= 0
}
