package remote

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
)

// Options configures Open. Every field is optional; a transport refuses a
// field it cannot honour rather than ignoring it.
type Options struct {
	// Token is the bearer token (HTTP). Callers read it from the
	// environment variable the remote's config names; it never comes
	// from, or goes to, disk.
	Token string
	// Tenant overrides the tenant a URL names (HTTP).
	Tenant string
	// Endpoint is the S3 endpoint URL (otherwise AWS_ENDPOINT_URL_S3 /
	// AWS_ENDPOINT_URL, as the AWS tools read them).
	Endpoint string
	// AllowInsecure allows plain http to a non-loopback host (HTTP).
	AllowInsecure bool
	// Guard judges ref moves where the transport itself applies them on
	// the policy-owning side (the file transport). Nil allows every move
	// except promotions/*, which then need a guard: see RefGuard.
	Guard RefGuard
	// ObjectFormat is the local repository's format: a transport whose
	// remote comes into being on a first push (an empty bucket prefix, a
	// new tenant) gives it this format. The file transport never creates
	// a repository: the path must hold one (tine init).
	ObjectFormat objects.Algo
}

// Opener opens a Transport for a parsed URL.
type Opener func(ctx context.Context, u *url.URL, opt Options) (Transport, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]Opener{}
)

// Register makes Open dispatch URLs of scheme (lower case, e.g. "https")
// to open. Transports register themselves from an init function; a second
// registration of one scheme replaces the first.
func Register(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[strings.ToLower(scheme)] = open
}

// Schemes returns the registered URL schemes, sorted.
func Schemes() []string {
	openersMu.RLock()
	defer openersMu.RUnlock()
	out := make([]string, 0, len(openers))
	for s := range openers {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Open returns the transport for rawURL: a path (absolute or relative, the
// directory holding .tine or the .tine directory itself) or file:// URL
// opens the file transport; other schemes (http, https, s3) go to the
// transport registered for them.
func Open(ctx context.Context, rawURL string, opt Options) (Transport, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	openersMu.RLock()
	open := openers[u.Scheme]
	openersMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("%s: %w: no transport for scheme %q (have %s)", rawURL, ErrUnsupportedURL, u.Scheme, strings.Join(Schemes(), ", "))
	}
	return open(ctx, u, opt)
}

// ParseURL parses a remote URL. A string without "scheme://" is a path and
// becomes a file URL of its absolute form, so "../other" and
// "/srv/runs" both name repositories on disk.
func ParseURL(rawURL string) (*url.URL, error) {
	if rawURL == "" {
		return nil, fmt.Errorf("empty remote URL: %w", ErrUnsupportedURL)
	}
	if strings.ContainsAny(rawURL, "\x00\n\r") {
		return nil, fmt.Errorf("remote URL %q: control characters: %w", rawURL, ErrUnsupportedURL)
	}
	if !strings.Contains(rawURL, "://") {
		abs, err := filepath.Abs(rawURL)
		if err != nil {
			return nil, fmt.Errorf("remote path %s: %w", rawURL, err)
		}
		return &url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("remote URL %q: %w: %w", rawURL, ErrUnsupportedURL, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme == "file" && u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("remote URL %s: a file URL names a local path (file:///path): %w", rawURL, ErrUnsupportedURL)
	}
	return u, nil
}
