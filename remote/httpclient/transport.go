package httpclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

func init() {
	remote.Register("http", Open)
	remote.Register("https", Open)
	remote.RegisterCheck("http", Check)
	remote.RegisterCheck("https", Check)
}

// Check is the remote.Checker of http and https URLs: the URL rules of
// spec §10 (https, or plain http to a literal loopback IP), a valid
// tenant, a token variable (every tenant route needs a bearer token) and
// no S3 endpoint.
func Check(u *url.URL, c remote.Config) error {
	if c.Endpoint != "" {
		return fmt.Errorf("%s: %w: --endpoint applies to s3:// remotes only", u.Redacted(), remote.ErrUnsupportedURL)
	}
	_, tenant, err := parseURL(u.String(), false)
	if err == nil && tenant == "" {
		err = fmt.Errorf("%s: %w: no tenant (end the URL with /v1/tenants/<tenant>)", u.Redacted(), ErrBadURL)
	}
	if p := u.Port(); err == nil && p != "" {
		if n, perr := strconv.Atoi(p); perr != nil || n < 1 || n > 65535 {
			err = fmt.Errorf("%s: %w: port %s is not 1-65535", u.Redacted(), ErrBadURL, p)
		}
	}
	if err == nil {
		if terr := wire.CheckTenant(tenant); terr != nil {
			err = fmt.Errorf("%s: %w: %w", u.Redacted(), ErrBadURL, terr)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", remote.ErrUnsupportedURL, err)
	}
	if !c.Token {
		return fmt.Errorf("%s: %w: every tenant request needs a bearer token: name the variable that holds it with --token-env VAR", u.Redacted(), ErrNoToken)
	}
	return nil
}

// Transport is the remote.Transport of an OpenTine HTTP remote
// (http:// and https:// URLs).
type Transport struct {
	c      *Client
	format objects.Algo // the format the caller requires ("" none)

	mu   sync.Mutex
	algo objects.Algo // the server's, once asked
}

var _ remote.Transport = (*Transport)(nil)

// Open is the remote.Opener of http and https URLs. The release policy of
// promotions/* is the server's (tine serve applies it), so opt.Guard does
// not apply; an S3 endpoint is refused.
func Open(_ context.Context, u *url.URL, opt remote.Options) (remote.Transport, error) {
	if opt.Endpoint != "" {
		return nil, fmt.Errorf("%s: %w: --endpoint applies to s3:// remotes only", u.Redacted(), remote.ErrUnsupportedURL)
	}
	format := opt.ObjectFormat
	if format != "" && !format.Valid() {
		return nil, fmt.Errorf("%w: %q", remote.ErrObjectFormat, format)
	}
	c, err := New(u.String(), Options{Token: opt.Token, Tenant: opt.Tenant, AllowInsecure: opt.AllowInsecure})
	if err != nil {
		if errors.Is(err, ErrBadURL) || errors.Is(err, ErrInsecureURL) {
			return nil, fmt.Errorf("%w: %w", remote.ErrUnsupportedURL, err)
		}
		return nil, err
	}
	return &Transport{c: c, format: format}, nil
}

// Client returns the protocol client under t.
func (t *Transport) Client() *Client { return t.c }

// serverAlgo asks the capabilities once and checks them against the
// format the caller requires.
func (t *Transport) serverAlgo(ctx context.Context) (objects.Algo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.algo != "" {
		return t.algo, nil
	}
	a, err := t.c.Algo(ctx)
	if errors.Is(err, wire.ErrUnknownFormat) {
		return "", fmt.Errorf("%w: %w", remote.ErrObjectFormat, err)
	}
	if err != nil {
		return "", mapError(err)
	}
	t.algo = a
	return a, nil
}

// requireAlgo refuses a remote whose object format is not a, before any
// object moves.
func (t *Transport) requireAlgo(ctx context.Context, a objects.Algo) error {
	got, err := t.serverAlgo(ctx)
	if err != nil {
		return err
	}
	if got != a {
		return fmt.Errorf("%s: %w: the remote stores %s objects (%s), this repository %s", t.c.base, remote.ErrObjectFormat, got, wire.FormatFor(got), a)
	}
	return nil
}

// Describe reports the server's object format. A tenant nobody pushed to
// yet is created by the first push, so it exists for every purpose.
func (t *Transport) Describe(ctx context.Context) (*remote.Description, error) {
	a, err := t.serverAlgo(ctx)
	if err != nil {
		return nil, err
	}
	if t.format != "" && t.format != a {
		return nil, fmt.Errorf("%s: %w: the remote stores %s objects, %s wanted", t.c.base, remote.ErrObjectFormat, a, t.format)
	}
	return &remote.Description{ObjectFormat: a, Protocol: wire.Protocol, Exists: true}, nil
}

// ListRefs lists the tenant's refs, sorted by name.
func (t *Transport) ListRefs(ctx context.Context) ([]remote.Ref, error) {
	refs, err := t.c.Refs(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]remote.Ref, 0, len(refs))
	for _, n := range SortedRefNames(refs) {
		out = append(out, remote.Ref{Name: n, ID: refs[n]})
	}
	return out, nil
}

// Close releases the client's idle connections.
func (t *Transport) Close() error {
	t.c.hc.CloseIdleConnections()
	return nil
}

// mapError gives a protocol error the remote package's sentinel beside its
// own: 401 and 403 are refusals, 404 is not found.
func mapError(err error) error {
	switch {
	case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrForbidden):
		return fmt.Errorf("%w: %w", remote.ErrRefused, err)
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("%w: %w", remote.ErrNotFound, err)
	}
	return err
}
