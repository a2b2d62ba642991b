package httpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// Errors of the client. Replies with an error status are *StatusError,
// which also matches the sentinel of its status class.
var (
	// ErrInsecureURL refuses a URL the client will not send a token to.
	ErrInsecureURL = errors.New("insecure remote URL")
	// ErrBadURL reports a URL that names no server or tenant.
	ErrBadURL = errors.New("invalid remote URL")
	// ErrNoToken refuses to talk to a remote without a bearer token.
	ErrNoToken = errors.New("no token")
	// ErrProtocol reports a reply that breaks the protocol (size, encoding,
	// shape, an unexpected status or value).
	ErrProtocol = errors.New("protocol violation by the server")
	// ErrUnauthorized is a 401: the token was refused.
	ErrUnauthorized = errors.New("authentication failed")
	// ErrForbidden is a 403: the role or tenant does not allow the request.
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound is a 404.
	ErrNotFound = errors.New("not found")
	// ErrInvalid is a 400: the server refused the request as invalid or
	// over a limit.
	ErrInvalid = errors.New("invalid request")
	// ErrBusy is a 503.
	ErrBusy = errors.New("server is busy")
	// ErrServer is any other error status (500 ...).
	ErrServer = errors.New("server error")
)

// DefaultTimeout bounds each request, as the reference client does.
const DefaultTimeout = 120 * time.Second

// DefaultChunk is the size of an upload's PATCH chunks.
const DefaultChunk = 4 << 20

// chunkFor returns the upload chunk size for a server whose extension
// advertised the largest body it reads (caps.MaxChunk): that size when it
// is below DefaultChunk (the server would refuse a larger chunk); to a
// literal loopback IP, where no byte crosses a network and a request's
// length is no risk to its deadline, that size up to wire.MaxRequestBytes
// (a 14 MiB frame crosses in one request, which the server installs from
// memory without writing it to its upload state and reading it back);
// else DefaultChunk.
func (c *Client) chunkFor(caps *wire.TineCaps) int64 {
	switch {
	case caps == nil || caps.MaxChunk <= 0:
		return DefaultChunk
	case caps.MaxChunk < DefaultChunk:
		return caps.MaxChunk
	case c.loopback:
		return min(caps.MaxChunk, wire.MaxRequestBytes)
	}
	return DefaultChunk
}

// maxInFlight bounds the requests one Client runs at once.
const maxInFlight = 8

// Options configures New.
type Options struct {
	// Token is the bearer token (required).
	Token string
	// Tenant names the tenant when the URL does not (/v1/tenants/<t>);
	// when both do, Tenant wins.
	Tenant string
	// AllowInsecure allows plain http to a host that is not a literal
	// loopback IP.
	AllowInsecure bool
	// Chunk is the upload chunk size (0: DefaultChunk).
	Chunk int64
	// Timeout bounds each request (0: DefaultTimeout).
	Timeout time.Duration
	// Transport replaces the HTTP transport (tests; nil: the default one,
	// which ignores proxy settings and never compresses).
	Transport http.RoundTripper
	// CompressFrames compresses binary frames to a loopback address too
	// (tests; see Client.CompressFrames).
	CompressFrames bool
}

// Client talks to one tenant of one OpenTine remote. It is safe for
// concurrent use.
type Client struct {
	base   string // scheme://host[/prefix], no trailing slash
	tenant string
	token  string
	// chunk is the upload chunk size; chunkSet: Options.Chunk chose it.
	chunk    atomic.Int64
	chunkSet bool
	// loopback: the URL names a literal loopback IP.
	loopback bool
	timeout  time.Duration
	hc       *http.Client
	sem      chan struct{}
	// tine holds the counts of tine's extension once the server offered
	// it (see Algo); nil: the format's.
	tine atomic.Pointer[objects.PackLimits]
	// frame is set once the server offered tine's binary frame (see Algo).
	frame atomic.Bool
	// haveClosure is set once the server offered closure haves (see Algo).
	haveClosure atomic.Bool
	// blocks is set once the server offered version 2 of the binary
	// frame as well (see Algo).
	blocks atomic.Bool
	// fetchBlocks is set once the server offered version 2 of the binary
	// frame in fetch replies too (see Algo).
	fetchBlocks atomic.Bool
	// compress: binary frames are zstd-compressed (see CompressFrames).
	compress bool
}

// Limits returns the manifest counts of frames between the client and its
// server: the extension's once Algo saw the server offer it, else
// objects.DefaultPackLimits.
func (c *Client) Limits() objects.PackLimits {
	if l := c.tine.Load(); l != nil {
		return *l
	}
	return objects.DefaultPackLimits
}

// Extended reports whether the client opted into tine's extension.
func (c *Client) Extended() bool { return c.tine.Load() != nil }

// CompressFrames reports whether binary frames to and from the server are
// zstd-compressed: unless its URL names a literal loopback IP, where the
// bytes never leave the machine and compressing them would only cost
// both sides CPU time.
func (c *Client) CompressFrames() bool { return c.compress }

// loopbackURL reports whether base's host is a literal loopback IP.
func loopbackURL(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// HaveClosure reports whether the server offered to read a fetch's haves
// as closure roots (wire.HeaderHaves; see Algo).
func (c *Client) HaveClosure() bool { return c.haveClosure.Load() }

// BinaryFrames reports whether the server offered tine's binary frame in
// a version this client speaks (see Algo): pushes then upload binary
// frames, and fetches ask for them.
func (c *Client) BinaryFrames() bool { return c.frame.Load() }

// FrameBlocks reports whether the server offered version 2 of the binary
// frame besides version 1 (see Algo): pushes then upload the source's
// storage blocks as they are where they can (wire.WriteFrameBlocks).
func (c *Client) FrameBlocks() bool { return c.blocks.Load() }

// FetchBlocks reports whether the server offered to answer fetches with
// version 2 of the binary frame (see Algo): fetches then ask for it, and
// the server's storage blocks arrive as they are stored.
func (c *Client) FetchBlocks() bool { return c.fetchBlocks.Load() }

// tineHeader adds wire.HeaderTine to h (nil: a new map) when the client
// opted in, so the server reads and writes this request's frames within
// the extension's counts.
func (c *Client) tineHeader(h map[string]string) map[string]string {
	if !c.Extended() {
		return h
	}
	if h == nil {
		h = map[string]string{}
	}
	h[wire.HeaderTine] = wire.TineHeaderValue
	return h
}

// New checks rawURL and returns a Client for it. The URL is
// scheme://host[:port][/prefix][/v1/tenants/<tenant>].
func New(rawURL string, opt Options) (*Client, error) {
	base, tenant, err := parseURL(rawURL, opt.AllowInsecure)
	if err != nil {
		return nil, err
	}
	if opt.Tenant != "" {
		tenant = opt.Tenant
	}
	if tenant == "" {
		return nil, fmt.Errorf("%s: %w: no tenant (end the URL with /v1/tenants/<tenant>)", rawURL, ErrBadURL)
	}
	if err := wire.CheckTenant(tenant); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", rawURL, ErrBadURL, err)
	}
	if strings.TrimSpace(opt.Token) == "" {
		return nil, fmt.Errorf("%s: %w: a token comes only from the environment variable a remote names (tine remote add NAME URL --token-env VAR, or tine clone URL --token-env VAR)", rawURL, ErrNoToken)
	}
	loopback := loopbackURL(base)
	c := &Client{base: base, tenant: tenant, token: strings.TrimSpace(opt.Token), chunkSet: opt.Chunk > 0, loopback: loopback,
		timeout: opt.Timeout, sem: make(chan struct{}, maxInFlight), compress: opt.CompressFrames || !loopback}
	c.chunk.Store(opt.Chunk)
	if opt.Chunk <= 0 {
		c.chunk.Store(DefaultChunk)
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	rt := opt.Transport
	if rt == nil {
		rt = &http.Transport{Proxy: nil, DisableCompression: true, ForceAttemptHTTP2: false,
			DialContext: (&net.Dialer{Timeout: 30 * time.Second}).DialContext, TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: maxInFlight, IdleConnTimeout: 30 * time.Second,
			MaxResponseHeaderBytes: wire.MaxReplyHeader}
	}
	c.hc = &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	return c, nil
}

// Tenant returns the tenant the client talks to.
func (c *Client) Tenant() string { return c.tenant }

// parseURL applies the URL rules of spec §10 and splits off the tenant.
func parseURL(rawURL string, allowInsecure bool) (base, tenant string, err error) {
	u, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	switch u.Scheme {
	case "https":
	case "http":
		ip := net.ParseIP(u.Hostname())
		if !allowInsecure && (ip == nil || !ip.IsLoopback()) {
			hint := ""
			if strings.EqualFold(u.Hostname(), "localhost") {
				hint = " (use http://127.0.0.1:PORT: localhost is a name, not a loopback address)"
			}
			return "", "", fmt.Errorf("%s: %w: plain http is allowed only to a literal loopback IP%s; use https", rawURL, ErrInsecureURL, hint)
		}
	default:
		return "", "", fmt.Errorf("%s: %w: scheme must be http or https", rawURL, ErrBadURL)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("%s: %w: want scheme://host[:port][/prefix][/v1/tenants/<tenant>]", rawURL, ErrBadURL)
	}
	// The path as written, escapes kept (spec §10 takes the segment after
	// /v1/tenants/ as the tenant): decoded, a%2Fb would silently name
	// tenant a, and a prefix's %2F would become a separator.
	path := u.EscapedPath()
	if i := strings.Index(path, "/v1/tenants/"); i >= 0 {
		tenant, _, _ = strings.Cut(path[i+len("/v1/tenants/"):], "/")
		path = path[:i]
	}
	return u.Scheme + "://" + u.Host + path, tenant, nil
}

// request is one call: method, the path under /v1 (already escaped), an
// optional body with its content type, and extra headers.
type request struct {
	method, path string
	body         []byte
	contentType  string
	header       map[string]string
}

// do sends req with the bearer token and a Content-Length, and returns the
// response; the caller closes its body. A transport failure (no reply, or
// one whose header could not be read) names the request and is bounded
// and escaped as wire.TransportError does: net/http quotes a malformed
// header line whole.
func (c *Client) do(ctx context.Context, req request) (*http.Response, context.CancelFunc, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	done := func() { cancel(); <-c.sem }
	var body io.Reader
	if req.body != nil || req.method != http.MethodGet && req.method != http.MethodHead {
		body = bytes.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, c.base+"/v1"+req.path, body)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	hr.ContentLength = int64(len(req.body))
	hr.Header.Set("Authorization", "Bearer "+c.token)
	hr.Header.Set("Accept-Encoding", "identity")
	if req.contentType != "" {
		hr.Header.Set("Content-Type", req.contentType)
	}
	for k, v := range req.header {
		hr.Header.Set(k, v)
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("%s %s: %w", req.method, c.describe(req.path), wire.TransportError(err))
	}
	return resp, done, nil
}

// tenantPath is the escaped path of a tenant resource.
func (c *Client) tenantPath(resource string) string {
	return "/tenants/" + url.PathEscape(c.tenant) + "/" + resource
}

// describe names a request path for messages without the upload id.
func (c *Client) describe(path string) string {
	if i := strings.Index(path, "/packs/"); i >= 0 {
		path = path[:i] + "/packs/<upload>"
	}
	return c.base + "/v1" + path
}
