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
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/tinehq/tine/remote"
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
	c      *s3.Client
	name   string
	prefix string // "" or "p/q/" (with the slash)
}

// newBucket builds the S3 client of cfg. Custom endpoints use path-style
// addressing (what S3-compatible servers expect); checksums are sent and
// checked only where the API requires them, since the payload is signed
// (SigV4 hashes the body) and every object tine reads is verified by its
// own checksums and oids anyway.
func newBucket(cfg Config) *bucket {
	creds := aws.Credentials{AccessKeyID: cfg.AccessKeyID, SecretAccessKey: cfg.SecretAccessKey,
		SessionToken: cfg.SessionToken, Source: "environment"}
	opt := s3.Options{
		Region: cfg.Region,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		}),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if cfg.Endpoint != "" {
		opt.BaseEndpoint = aws.String(strings.TrimSuffix(cfg.Endpoint, "/"))
		opt.UsePathStyle = true
	}
	if cfg.HTTPClient != nil {
		opt.HTTPClient = cfg.HTTPClient
	}
	b := &bucket{c: s3.New(opt), name: cfg.Bucket}
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
	status := 0
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	return status, code
}

// s3Error is a server's answer in one line ("404 NoSuchBucket: The
// specified bucket does not exist."), without the SDK's request ids; it
// wraps the package sentinel it maps to and the SDK's error.
type s3Error struct {
	status   int
	code     string
	msg      string
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
	switch e.sentinel {
	case errNoSuchBucket:
		s += " (tine does not create buckets: create it first)"
	case remote.ErrRefused:
		s += " (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and the bucket's policy)"
	}
	return s
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
	var ae smithy.APIError
	if errors.As(err, &ae) {
		e.msg = ae.ErrorMessage()
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
// bytes and ETag.
func (b *bucket) get(ctx context.Context, rel string, limit int64) ([]byte, string, error) {
	out, err := b.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.name, Key: aws.String(b.key(rel))})
	if err != nil {
		return nil, "", fmt.Errorf("get %s: %w", b.key(rel), classify(err))
	}
	defer out.Body.Close()
	if n := aws.ToInt64(out.ContentLength); n > limit {
		return nil, "", fmt.Errorf("get %s: %w: %d bytes, limit %d", b.key(rel), ErrTooLarge, n, limit)
	}
	data, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, "", fmt.Errorf("get %s: %w", b.key(rel), err)
	}
	if int64(len(data)) > limit {
		return nil, "", fmt.Errorf("get %s: %w: more than %d bytes", b.key(rel), ErrTooLarge, limit)
	}
	return data, aws.ToString(out.ETag), nil
}

// size returns the size of key rel, or errNoSuchKey when there is none.
func (b *bucket) size(ctx context.Context, rel string) (int64, error) {
	out, err := b.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.name, Key: aws.String(b.key(rel))})
	if err != nil {
		return 0, fmt.Errorf("head %s: %w", b.key(rel), classify(err))
	}
	return aws.ToInt64(out.ContentLength), nil
}

// getToFile streams key rel into f, refusing more than limit bytes.
func (b *bucket) getToFile(ctx context.Context, rel string, f *os.File, limit int64) error {
	out, err := b.c.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.name, Key: aws.String(b.key(rel))})
	if err != nil {
		return fmt.Errorf("get %s: %w", b.key(rel), classify(err))
	}
	defer out.Body.Close()
	if n := aws.ToInt64(out.ContentLength); n > limit {
		return fmt.Errorf("get %s: %w: %d bytes, limit %d", b.key(rel), ErrTooLarge, n, limit)
	}
	n, err := io.Copy(f, io.LimitReader(out.Body, limit+1))
	if err != nil {
		return fmt.Errorf("get %s: %w", b.key(rel), err)
	}
	if n > limit {
		return fmt.Errorf("get %s: %w: more than %d bytes", b.key(rel), ErrTooLarge, limit)
	}
	return nil
}

// putCond writes body to key rel under one condition: If-None-Match: *
// when etag is "" (create only), else If-Match: etag (replace only that
// version). It returns the new ETag. 412 is errPrecondition; 409
// ConditionalRequestConflict is retried with jittered exponential backoff
// and is ErrUnavailable when it persists.
func (b *bucket) putCond(ctx context.Context, rel string, body io.ReadSeeker, size int64, etag string) (string, error) {
	in := &s3.PutObjectInput{Bucket: &b.name, Key: aws.String(b.key(rel)), Body: body, ContentLength: aws.Int64(size)}
	if etag == "" {
		in.IfNoneMatch = aws.String("*")
	} else {
		in.IfMatch = aws.String(etag)
	}
	wait := backoffFirst
	for attempt := 1; ; attempt++ {
		if _, err := body.Seek(0, io.SeekStart); err != nil {
			return "", fmt.Errorf("put %s: %w", b.key(rel), err)
		}
		out, err := b.c.PutObject(ctx, in)
		if err == nil {
			return aws.ToString(out.ETag), nil
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
	p := s3.NewListObjectsV2Paginator(b.c, &s3.ListObjectsV2Input{Bucket: &b.name, Prefix: aws.String(b.key(relPrefix))})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("list %s: %w", b.key(relPrefix), classify(err))
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			rel, ok := strings.CutPrefix(k, b.prefix)
			if !ok {
				return fmt.Errorf("list %s: %w: the server listed key %q outside the prefix", b.key(relPrefix), ErrRemoteCorrupt, k)
			}
			if err := fn(rel, aws.ToString(o.ETag), aws.ToInt64(o.Size)); err != nil {
				return err
			}
		}
	}
	return nil
}

// remove deletes key rel (unconditionally; used only for the probe's
// scratch key, which nothing else writes).
func (b *bucket) remove(ctx context.Context, rel string) error {
	_, err := b.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.name, Key: aws.String(b.key(rel))})
	if err != nil {
		return fmt.Errorf("delete %s: %w", b.key(rel), classify(err))
	}
	return nil
}
