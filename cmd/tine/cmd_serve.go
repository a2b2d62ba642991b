package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/remote/httpserve"
)

// serveCmd is `tine serve --root DIR [--addr 127.0.0.1:8787] [--tenant T]
// [--token-env VAR] [--role reader|writer|admin] ...`.
type serveCmd struct {
	Root           string   `name:"root" default:".tine-remote" placeholder:"DIR" help:"State directory: tenants/<tenant>/.tine repositories, uploads/<tenant>/ upload state, search/<tenant>/ journals, audit/ chain and key."`
	Addr           string   `name:"addr" default:"127.0.0.1:8787" placeholder:"HOST:PORT" help:"Address to listen on (port 0 picks a free port)."`
	Tenant         string   `name:"tenant" placeholder:"T" help:"Tenant of the token's identity (default: $TINE_REMOTE_TENANT, else default)."`
	TokenEnv       string   `name:"token-env" default:"TINE_REMOTE_TOKEN" placeholder:"VAR" help:"Environment variable holding the bearer token (at least 16 bytes)."`
	Role           string   `name:"role" default:"writer" enum:"reader,writer,admin" help:"Role of the token: reader, writer or admin."`
	WriterPromotes bool     `name:"writer-promotes" help:"Let a writer move promotions/* and existing tags/* (admins always may)."`
	ObjectFormat   string   `name:"object-format" default:"blake3" enum:"blake3,sha256" help:"Object format of the tenants (sha256 is OpenTine's; advertised in the capabilities)."`
	Cert           string   `name:"cert" placeholder:"FILE" help:"TLS certificate (PEM); with --key serves https."`
	Key            string   `name:"key" placeholder:"FILE" help:"TLS private key (PEM)."`
	MaxBodyMB      int      `name:"max-body-mb" default:"16" help:"Largest request body, MiB (each upload chunk included)."`
	MaxUploadMB    int      `name:"max-upload-mb" default:"256" help:"Largest resumable upload, MiB (at most 256)."`
	ReadyFile      string   `name:"ready-file" placeholder:"FILE" help:"Write the server's URL to FILE once it listens (for scripts using port 0)."`
	OIDCIssuer     string   `name:"oidc-issuer" placeholder:"URL" help:"Also accept OIDC tokens (JWT, RS256/ES256) whose iss is URL; needs --oidc-audience and --oidc-jwks."`
	OIDCAudience   []string `name:"oidc-audience" placeholder:"AUD" help:"Accepted aud of OIDC tokens (repeatable)."`
	OIDCJWKS       string   `name:"oidc-jwks" placeholder:"FILE|URL" help:"The issuer's signing keys: a JWKS file, or an https URL."`
	OIDCAZP        []string `name:"oidc-authorized-party" placeholder:"AZP" help:"An azp accepted besides the audiences (repeatable)."`
}

// Help explains the server under `tine serve --help`.
func (c *serveCmd) Help() string {
	return `Serves the repositories under --root over OpenTine's remote HTTP
protocol (opentine-remote/1), one tine repository per tenant, to tine
fetch/push/clone and to OpenTine clients (with --object-format sha256).
One static bearer token, read from the environment variable --token-env,
gives one identity: --tenant with --role. With --oidc-issuer, OIDC tokens
(JWTs signed RS256 or ES256 by a key of --oidc-jwks) are accepted too:
their tenant claim is the identity's tenant, their roles claim (a list or
a space-separated string) its roles. Every request is audited in
audit/log under --root, an HMAC-SHA256 chain an admin checks with
GET /v1/tenants/<T>/audit/verify. promotions/* move only when the
tenant's release policy (tenants/<T>/tine-policy.json under --root)
holds, as with tine promote. Plain http is served only on a loopback
address; elsewhere give --cert and --key. SIGINT or SIGTERM stops it,
letting requests in flight finish.

Examples:

    $ export TINE_REMOTE_TOKEN=$(head -c 24 /dev/urandom | base64)
    $ tine serve --root /srv/tine --tenant acme
    $ tine serve --root /srv/tine --addr 0.0.0.0:8443 --cert tls.crt --key tls.key --role admin
    $ tine serve --root /srv/tine --oidc-issuer https://auth.example.com \
        --oidc-audience tine-remote --oidc-jwks https://auth.example.com/jwks.json`
}

// Run starts the server and serves until interrupted.
func (c *serveCmd) Run(e *env) error {
	if err := e.refuseRepoFlag("the server's repositories live under --root"); err != nil {
		return err
	}
	if (c.Cert == "") != (c.Key == "") {
		return usagef("--cert and --key go together")
	}
	if c.MaxBodyMB < 1 || c.MaxUploadMB < 1 || c.MaxUploadMB > 256 {
		return usagef("--max-body-mb must be at least 1 and --max-upload-mb between 1 and 256")
	}
	if c.Cert == "" && !loopbackAddr(c.Addr) {
		return fmt.Errorf("plain http only on a loopback address (127.0.0.1, ::1, localhost), not %s: give --cert and --key to serve https", c.Addr)
	}
	tenant := c.Tenant
	if tenant == "" {
		tenant = e.getenv("TINE_REMOTE_TENANT")
	}
	if tenant == "" {
		tenant = "default"
	}
	token := e.getenv(c.TokenEnv)
	if len(token) < httpserve.MinTokenBytes {
		return fmt.Errorf("$%s must hold a token of at least %d bytes (it has %d): export one, e.g. %s=$(head -c 24 /dev/urandom | base64)",
			c.TokenEnv, httpserve.MinTokenBytes, len(token), c.TokenEnv)
	}
	oidc, err := c.oidcConfig()
	if err != nil {
		return err
	}
	defer raiseGCWithin(serveGCPercent, serveMemoryLimit)()
	srv, err := httpserve.New(httpserve.Config{OIDC: oidc,
		Root: c.Root, Tenant: tenant, Token: []byte(token), Role: httpserve.Role(c.Role),
		WriterPromotes: c.WriterPromotes, ObjectFormat: httpserve.ObjectFormat(c.ObjectFormat), Guard: serveGuard,
		MaxBodyBytes: int64(c.MaxBodyMB) << 20, MaxUploadBytes: int64(c.MaxUploadMB) << 20,
		Log: func(line string) { fmt.Fprintf(e.stderr, "tine serve: %s\n", line) },
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if c.Cert != "" {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String()
	fmt.Fprintf(e.stdout, "tine serve: listening on %s (tenant %s, role %s, object format %s, root %s)\n",
		url, tenant, c.Role, c.ObjectFormat, c.Root)
	if c.ReadyFile != "" {
		if err := fsutil.WriteFileAtomic(filepath.Clean(c.ReadyFile), []byte(url+"\n"), 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("--ready-file: %w", err)
		}
	}
	return serveUntilSignal(e.ctx, srv.HTTPServer(c.Addr), ln, c.Cert, c.Key)
}

// The collector's target and soft memory limit of tine serve. An install
// or a fetch holds its whole frame and objects until it answers, so at
// Go's default of 100 the collector rescans them many times for little
// garbage: a ninth of the server's CPU in a 10,000-event push, a sixth
// in the fetch. 400 took about that much back for a peak of about 140 MiB
// instead of 100 MiB there. The limit keeps the target from multiplying a
// large heap (two installs of 256 MiB uploads may run at once): past it
// the collector runs as often as it must.
const (
	serveGCPercent   = 400
	serveMemoryLimit = 2 << 30
)

// oidcConfig is the OIDC configuration of the flags, nil without
// --oidc-issuer.
func (c *serveCmd) oidcConfig() (*httpserve.OIDCConfig, error) {
	if c.OIDCIssuer == "" {
		if len(c.OIDCAudience) > 0 || c.OIDCJWKS != "" || len(c.OIDCAZP) > 0 {
			return nil, usagef("the --oidc-* flags need --oidc-issuer")
		}
		return nil, nil
	}
	if len(c.OIDCAudience) == 0 || c.OIDCJWKS == "" {
		return nil, usagef("--oidc-issuer needs --oidc-audience and --oidc-jwks")
	}
	return &httpserve.OIDCConfig{Issuer: c.OIDCIssuer, Audiences: c.OIDCAudience, AuthorizedParties: c.OIDCAZP, JWKS: c.OIDCJWKS}, nil
}

// serveUntilSignal serves on ln until SIGINT or SIGTERM, then shuts down,
// letting requests in flight finish (at most 30 s).
func serveUntilSignal(ctx context.Context, hs *http.Server, ln net.Listener, cert, key string) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() {
		if cert != "" {
			errc <- hs.ServeTLS(ln, cert, key)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loopbackAddr reports whether addr's host is a loopback IP or localhost
// (the server side may trust the name: it binds, it does not resolve for
// a token).
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
