package s3client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/tinehq/tine/remote/wire"
)

// expectContinueBytes is the body size from which a PUT asks the server
// to accept its headers first (Expect: 100-continue), as the SDK did: a
// refused upload (412, 403) then costs no body.
const expectContinueBytes = 2 << 20

// responseHeaderTimeout bounds the wait for an answer's headers once a
// request is sent whole (body included, so a large PUT's upload does not
// count), on the client New builds: a server that took the connection
// and never answers must not hold tine forever, and a minute is far more
// than a server that answers takes once it has the whole request. A
// timed-out try counts as one without an answer (it is retried). A
// variable so a test can shorten it.
var responseHeaderTimeout = time.Minute

// Options configure a Client.
type Options struct {
	// Endpoint is the server's base URL (path-style addressing); "" means
	// AWS S3 in Region (virtual-hosted addressing where the bucket name
	// allows it).
	Endpoint string
	// Region is the signing region.
	Region string
	// Credentials sign every request.
	Credentials aws.Credentials
	// HTTPClient sends the requests; nil is a client with net/http's
	// default transport settings, a response-header timeout of one
	// minute, answers' headers bounded to wire.MaxReplyHeader bytes and
	// no overall timeout.
	HTTPClient *http.Client
	// MaxAttempts bounds the tries of one request (0: the SDK's standard
	// retryer's, retry.DefaultMaxAttempts, 3).
	MaxAttempts int
	// Backoff, when set, replaces the standard retryer's waits between
	// tries (tests shorten them).
	Backoff retry.BackoffDelayer
}

// Client sends signed S3 requests. It is safe for concurrent use.
type Client struct {
	opt     Options
	hc      *http.Client
	signer  *v4.Signer
	retryer *retry.Standard
}

// New returns the Client of opt.
func New(opt Options) *Client {
	opt.Endpoint = strings.TrimSuffix(opt.Endpoint, "/")
	hc := opt.HTTPClient
	if hc == nil {
		tr, ok := http.DefaultTransport.(*http.Transport)
		if ok {
			tr = tr.Clone()
		} else { // replaced by the program: its settings are unknown
			tr = &http.Transport{Proxy: http.ProxyFromEnvironment}
		}
		tr.MaxIdleConnsPerHost = 32 // the probe's writers, and the ref readers
		tr.ResponseHeaderTimeout = responseHeaderTimeout
		tr.MaxResponseHeaderBytes = wire.MaxReplyHeader
		hc = &http.Client{Transport: tr}
	}
	// A copy, so the caller's client keeps its own redirect policy.
	own := *hc
	own.CheckRedirect = noRedirect
	return &Client{opt: opt, hc: &own, signer: newSigner(), retryer: newRetryer(opt)}
}

// noRedirect hands a 3xx answer back as it is, to become an *Error: a
// signature is valid for one host and path only, net/http would carry
// X-Amz-Security-Token to any host a Location names, and what that host
// answered would be taken for the bucket's. S3 redirects only a request
// sent to the wrong region's endpoint (301 PermanentRedirect).
func noRedirect(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}

// request is one S3 operation, rebuilt and re-signed for every attempt.
type request struct {
	op     string // "GetObject", for messages
	method string
	bucket string
	key    string // "" for a bucket operation
	query  map[string][]string
	header map[string]string
	body   io.ReadSeeker // nil: no body
	size   int64
	// sha256 is the body's hex SHA-256 once payloadHash has read it: a
	// retry sends the same bytes and does not read them again.
	sha256 string
}

// target returns the URL of r: path-style under a custom endpoint, else
// AWS S3's regional endpoint, virtual-hosted unless the bucket name has
// a dot (which the certificate's wildcard cannot match).
func (c *Client) target(r *request) (*url.URL, error) {
	var u *url.URL
	path := "/"
	if c.opt.Endpoint != "" {
		var err error
		if u, err = url.Parse(c.opt.Endpoint); err != nil {
			return nil, fmt.Errorf("endpoint %q: %w", c.opt.Endpoint, err)
		}
		path += r.bucket
		if r.key != "" {
			path += "/" + r.key
		}
	} else {
		if !validRegion(c.opt.Region) {
			return nil, fmt.Errorf("region %q is not a valid AWS region name", c.opt.Region)
		}
		host := "s3." + c.opt.Region + ".amazonaws.com"
		if strings.HasPrefix(c.opt.Region, "cn-") {
			host += ".cn"
		}
		u = &url.URL{Scheme: "https", Host: host}
		if strings.Contains(r.bucket, ".") {
			path += r.bucket
			if r.key != "" {
				path += "/" + r.key
			}
		} else {
			u.Host = r.bucket + "." + host
			path += r.key
		}
	}
	u.Path = path
	u.RawPath = EscapePath(path)
	// Any valid encoding: the signer rewrites it into the canonical one.
	u.RawQuery = url.Values(r.query).Encode()
	return u, nil
}

// validRegion accepts a DNS label: the region becomes part of a host name.
func validRegion(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// payloadHash returns what X-Amz-Content-Sha256 says of r's body: its
// SHA-256 over plain http (the signature is then the body's integrity
// check), UNSIGNED-PAYLOAD over https (TLS protects the body; the pack is
// not read twice), as the AWS SDK does for S3.
func (c *Client) payloadHash(u *url.URL, r *request) (string, error) {
	if r.body == nil {
		return EmptyPayloadHash, nil
	}
	if u.Scheme == "https" {
		return UnsignedPayload, nil
	}
	if r.sha256 != "" {
		return r.sha256, nil
	}
	if _, err := r.body.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, r.body); err != nil {
		return "", err
	}
	r.sha256 = hex.EncodeToString(h.Sum(nil))
	return r.sha256, nil
}

// build returns the signed request of one try of r, sending body. The
// signing time comes from clock once the body is hashed: S3 refuses a
// request dated more than 15 minutes from its arrival, and hashing a
// large pack on a slow disk takes a while.
func (c *Client) build(ctx context.Context, r *request, body io.Reader, clock func() time.Time, opts ...func(*v4.SignerOptions)) (*http.Request, error) {
	u, err := c.target(r)
	if err != nil {
		return nil, err
	}
	hash, err := c.payloadHash(u, r)
	if err != nil {
		return nil, fmt.Errorf("read the body: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.URL = u // as built: the path encoded exactly as signed
	if r.body != nil {
		req.ContentLength = r.size
		if r.size == 0 {
			req.Body = http.NoBody
		}
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if err := c.sign(ctx, req, hash, clock(), opts...); err != nil {
		return nil, fmt.Errorf("sign the request: %w", err)
	}
	// Set after signing: neither is signed (a proxy may change them).
	if r.size >= expectContinueBytes {
		req.Header.Set("Expect", "100-continue")
	}
	// Bytes as stored: no transparent gzip, so Content-Length is the
	// object's size (the SDK asked for identity too).
	req.Header.Set("Accept-Encoding", "identity")
	return req, nil
}

// once sends r one time. A 2xx answer is handed to consume, which owns
// its body; any other is read (bounded) into an *Error.
func (c *Client) once(ctx context.Context, r *request, consume func(*http.Response) error) error {
	g := newStallGuard(ctx)
	var body io.Reader
	if r.body != nil {
		ab := &attemptBody{r: r.body, g: g}
		// The transport may still be writing the body after Do returns
		// (an early answer); the next try must not share the reader.
		defer ab.detach()
		body = ab
	}
	req, err := c.build(g.ctx, r, body, time.Now)
	if err != nil {
		g.end()
		return err
	}
	if r.body != nil {
		// payloadHash may have read it.
		if _, err := r.body.Seek(0, io.SeekStart); err != nil {
			g.end()
			return fmt.Errorf("rewind the body: %w", err)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		g.end()
		// Bounded and escaped: net/http quotes a malformed header
		// line whole into its error.
		return newConnError(ctx, wire.TransportError(g.explain(err)))
	}
	resp.Body = &guardedBody{rc: resp.Body, g: g}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return readError(resp)
	}
	return consume(resp)
}

// connError is a try that got no (complete) answer: refused or broken
// connection, timeout, truncated body. It speaks the AWS SDK retryer's
// interfaces as the SDK's own send errors do: a connection error, which
// is retried, unless the request's context had ended, which is not (a
// transport's own timeout also matches context.DeadlineExceeded, so the
// context itself decides).
type connError struct {
	err      error
	canceled bool
}

// newConnError is err of a try of a request under ctx.
func newConnError(ctx context.Context, err error) *connError {
	return &connError{err: err, canceled: ctx.Err() != nil}
}

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// ConnectionError reports a try the retryer may retry: any but a
// cancelled one (it still refuses a host name that does not resolve).
func (e *connError) ConnectionError() bool { return !e.canceled }

// CanceledError reports a try ended by its context, never retried.
func (e *connError) CanceledError() bool { return e.canceled }

// attemptBody is a request body for one try: once detached it reads
// nothing more, so a transport still writing an abandoned try cannot
// move the shared reader under the next try.
type attemptBody struct {
	mu   sync.Mutex
	r    io.Reader
	g    *stallGuard // timed while it is read; paused once it is whole
	done bool
}

func (b *attemptBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return 0, errAttemptOver
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.g.pause() // whole: the response-header timeout takes over
	} else {
		b.g.touch()
	}
	return n, err
}

func (b *attemptBody) detach() {
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
}
