package s3remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/internal/s3client"
)

// conflictRetries and the backoff bounds govern retries of a conditional
// write answered 409 ConditionalRequestConflict: S3 reports that another
// conditional write to the key was in flight and asks the client to retry,
// which is not a CAS verdict yet.
const (
	conflictRetries = 8
	backoffFirst    = 50 * time.Millisecond
	backoffMax      = 2 * time.Second
)

// bucket is the remote's view of its bucket: every key it names is
// relative to the remote's prefix. It owns the S3 client and maps the
// server's answers onto errNoSuchKey, errPrecondition and the package's
// sentinels.
type bucket struct {
	c      *s3client.Client
	name   string
	prefix string // "" or "p/q/" (with the slash)
}

// newBucket builds the S3 client of cfg: path-style addressing under a
// custom endpoint (what S3-compatible servers expect), AWS S3's regional
// endpoint otherwise. No checksum headers are sent or checked: over plain
// http the signature covers the body's SHA-256, over https TLS protects
// it, and every object tine reads is verified by its own checksums and
// oids anyway.
func newBucket(cfg Config) *bucket {
	c := s3client.New(s3client.Options{
		Endpoint: cfg.Endpoint,
		Region:   cfg.Region,
		Credentials: aws.Credentials{AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey,
			SessionToken: cfg.SessionToken},
		HTTPClient: cfg.HTTPClient,
	})
	b := &bucket{c: c, name: cfg.Bucket}
	if cfg.Prefix != "" {
		b.prefix = cfg.Prefix + "/"
	}
	return b
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// key returns the full key of rel.
func (b *bucket) key(rel string) string { return b.prefix + rel }

// statusOf returns the HTTP status and S3 error code of err, or 0 and "".
func statusOf(err error) (int, string) {
	var e *s3client.Error
	if errors.As(err, &e) {
		return e.Status, e.Code
	}
	return 0, ""
}

// s3Error is a server's answer in one line ("404 NoSuchBucket: The
// specified bucket does not exist."), without request ids; it wraps the
// package sentinel it maps to and the client's error.
type s3Error struct {
	status   int
	code     string
	msg      string
	region   string // the bucket's region, when the server named it
	skewed   bool   // refused for a clock too far off the server's
	sentinel error
	err      error
}

func (e *s3Error) Error() string {
	s := fmt.Sprintf("the server answered %d %s", e.status, e.code)
	if e.msg != "" {
		s += ": " + strings.TrimSuffix(e.msg, ".")
	}
	if e.sentinel != nil && e.sentinel != errNoSuchKey && e.sentinel != errPrecondition {
		s = e.sentinel.Error() + ": " + s
	}
	switch {
	case e.region != "":
		s += fmt.Sprintf(" (the bucket is in region %s: set AWS_REGION=%s)", e.region, e.region)
	case e.skewed:
		s += " (this machine's clock is more than 15 minutes off the server's: set it right)"
	case e.sentinel == errNoSuchBucket:
		s += " (tine does not create buckets: create it first)"
	case e.sentinel == remote.ErrRefused:
		s += " (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the bucket's policy)"
	}
	return s
}

// maxSkew is how far S3 lets a request's X-Amz-Date be from its clock.
const maxSkew = 15 * time.Minute

// skewed reports whether a refusal is S3's answer to a clock too far off
// its own: said in the code, or, for an answer without a body (HEAD), a
// 403 whose Date header is further off than S3 allows.
func skewed(se *s3client.Error, now time.Time) bool {
	if se.Code == "RequestTimeTooSkewed" {
		return true
	}
	if se.Status != 403 || se.Date.IsZero() {
		return false
	}
	d := now.Sub(se.Date)
	return d > maxSkew || d < -maxSkew
}

func (e *s3Error) Unwrap() []error {
	if e.sentinel == nil {
		return []error{e.err}
	}
	return []error{e.sentinel, e.err}
}

// classify maps an S3 error onto the package's sentinels: errNoSuchKey
// (404), errNoSuchBucket (remote.ErrNotFound), errPrecondition (412),
// remote.ErrRefused (403); transport errors (no answer) pass unchanged.
func classify(err error) error {
	status, code := statusOf(err)
	if status == 0 && code == "" {
		return err
	}
	e := &s3Error{status: status, code: code, err: err}
	var se *s3client.Error
	if errors.As(err, &se) {
		e.msg = se.Message
		e.skewed = skewed(se, time.Now())
		if se.Status/100 == 3 || se.Status == 400 { // S3's answers to the wrong region
			e.region = se.Region
		}
	}
	switch {
	case code == "NoSuchBucket":
		e.sentinel = errNoSuchBucket
	case status == 404 || code == "NoSuchKey" || code == "NotFound":
		e.sentinel = errNoSuchKey
	case status == 412 || code == "PreconditionFailed":
		e.sentinel = errPrecondition
	case status == 403:
		e.sentinel = remote.ErrRefused
	}
	return e
}

// get reads key rel whole, refusing more than limit bytes, and returns its
// bytes and ETag; a body broken part-way is resumed (s3client.Download).
func (b *bucket) get(ctx context.Context, rel string, limit int64) ([]byte, string, error) {
	var buf bytes.Buffer
	_, etag, err := b.download(ctx, rel, &buf, limit)
	if err != nil {
		return nil, "", err
	}
	return buf.Bytes(), etag, nil
}

// size returns the size of key rel, or errNoSuchKey when there is none.
func (b *bucket) size(ctx context.Context, rel string) (int64, error) {
	n, _, err := b.c.Head(ctx, b.name, b.key(rel))
	if err != nil {
		return 0, fmt.Errorf("head %s: %w", b.key(rel), classify(err))
	}
	return n, nil
}

// getToFile streams key rel into f, refusing more than limit bytes; a
// body broken part-way is resumed where it broke (s3client.Download).
func (b *bucket) getToFile(ctx context.Context, rel string, f *os.File, limit int64) error {
	_, _, err := b.download(ctx, rel, f, limit)
	return err
}

// download copies key rel into w, refusing more than limit bytes, and
// returns the bytes written and the key's ETag, its errors worded and
// classified for this package.
func (b *bucket) download(ctx context.Context, rel string, w io.Writer, limit int64) (int64, string, error) {
	n, etag, err := b.c.Download(ctx, b.name, b.key(rel), w, limit)
	var big *s3client.SizeError
	if errors.As(err, &big) {
		return n, "", fmt.Errorf("get %s: %w: %v", b.key(rel), ErrTooLarge, big)
	}
	var re *s3client.ResumeError
	if errors.As(err, &re) {
		return n, "", fmt.Errorf("get %s: resume after %d bytes: %w", b.key(rel), re.Offset, classify(re.Err))
	}
	if err != nil {
		return n, "", fmt.Errorf("get %s: %w", b.key(rel), classify(err))
	}
	return n, etag, nil
}

// putCond writes body to key rel under one condition: If-None-Match: *
// when etag is "" (create only), else If-Match: etag (replace only that
// version). It returns the new ETag. 412 is errPrecondition; 409
// ConditionalRequestConflict is retried with jittered exponential backoff
// and is ErrUnavailable when it persists.
func (b *bucket) putCond(ctx context.Context, rel string, body io.ReadSeeker, size int64, etag string) (string, error) {
	cond := s3client.Condition{IfNoneMatch: "*"}
	if etag != "" {
		cond = s3client.Condition{IfMatch: etag}
	}
	wait := backoffFirst
	for attempt := 1; ; attempt++ {
		got, err := b.c.Put(ctx, b.name, b.key(rel), body, size, cond)
		if err == nil {
			return got, nil
		}
		status, code := statusOf(err)
		if status != 409 || (code != "" && code != "ConditionalRequestConflict") {
			return "", fmt.Errorf("put %s: %w", b.key(rel), classify(err))
		}
		if attempt == conflictRetries {
			return "", fmt.Errorf("put %s: %w (%d tries): %w", b.key(rel), ErrUnavailable, attempt, classify(err))
		}
		// Full jitter: concurrent writers that collided spread out.
		if err := sleepCtx(ctx, wait/2+rand.N(wait/2+1)); err != nil {
			return "", fmt.Errorf("put %s: %w", b.key(rel), err)
		}
		wait = min(2*wait, backoffMax)
	}
}

// putBytes is putCond over a byte slice.
func (b *bucket) putBytes(ctx context.Context, rel string, data []byte, etag string) (string, error) {
	return b.putCond(ctx, rel, bytes.NewReader(data), int64(len(data)), etag)
}

// list calls fn for every key under relPrefix (relative to the remote's
// prefix) with its ETag and size, in key order.
func (b *bucket) list(ctx context.Context, relPrefix string, fn func(rel, etag string, size int64) error) error {
	token := ""
	for {
		page, err := b.c.List(ctx, b.name, b.key(relPrefix), token, 0)
		if err != nil {
			return fmt.Errorf("list %s: %w", b.key(relPrefix), classify(err))
		}
		for _, o := range page.Objects {
			rel, ok := strings.CutPrefix(o.Key, b.prefix)
			if !ok {
				return fmt.Errorf("list %s: %w: the server listed key %q outside the prefix", b.key(relPrefix), ErrRemoteCorrupt, o.Key)
			}
			if err := fn(rel, o.ETag, o.Size); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		token = page.Next
	}
}

// remove deletes key rel (unconditionally; used only for the probe's
// scratch key, which nothing else writes).
func (b *bucket) remove(ctx context.Context, rel string) error {
	if err := b.c.Delete(ctx, b.name, b.key(rel)); err != nil {
		return fmt.Errorf("delete %s: %w", b.key(rel), classify(err))
	}
	return nil
}
