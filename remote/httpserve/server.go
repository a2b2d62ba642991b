package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// Errors of New.
var (
	// ErrWeakToken reports a static token shorter than MinTokenBytes.
	ErrWeakToken = errors.New("token too short")
	// ErrBadConfig reports a Config New cannot serve.
	ErrBadConfig = errors.New("invalid server configuration")
)

// slotWait is how long a request waits for a fetch, install or negotiate
// slot before the server answers 503 (spec §11).
const slotWait = 30 * time.Second

// Config configures a Server.
type Config struct {
	// Root is the state directory: tenants/<t>/.tine repositories,
	// uploads/<t>/ resumable-upload state, search/<t>/ journals and the
	// audit/ chain (doc.go).
	Root string
	// Tenant, Token and Role make the one static identity.
	Tenant string
	Token  []byte
	Role   Role
	// WriterPromotes grants writers the promote and retag extras.
	WriterPromotes bool
	// ObjectFormat is the hash profile of every tenant repository this
	// server creates and serves; the capabilities advertise it.
	ObjectFormat objects.Algo
	// Guard judges ref updates on this side, which owns the release
	// policy: cmd/tine passes the one that applies `tine promote`'s policy
	// to promotions/*. Without a guard every promotions/* update is
	// refused (403).
	Guard remote.RefGuard
	// MaxBodyBytes bounds every request body (0: 16 MiB);
	// MaxUploadBytes a resumable upload's size (0: 256 MiB, never more).
	MaxBodyBytes, MaxUploadBytes int64
	// Log receives one line per refused or failed request, per audit row
	// that could not be written and per chain audit/verify found invalid
	// (may be nil).
	Log func(string)
	// Now is the clock of the upload TTL (nil: time.Now).
	Now func() time.Time
	// HideTineExtension serves the protocol as OpenTine's server does:
	// no tine field in the capabilities, and wire.HeaderTine ignored.
	// Tests use it to stand for an OpenTine server.
	HideTineExtension bool
	// TinePackObjects and TineShallow are the manifest counts of the tine
	// extension (0: wire.TineMaxPackObjects and wire.TineMaxShallow; at
	// least objects.MaxPackObjects, at most those).
	TinePackObjects, TineShallow int
	// AuditMaxBytes is the size at which audit/log is closed as a segment
	// (0: DefaultAuditMaxBytes).
	AuditMaxBytes int64
	// OIDC, when set, accepts OIDC bearer tokens besides the static one.
	OIDC *OIDCConfig
	// NoTineFrame serves the extension without its binary frame (no
	// frame in the capabilities, wire.HeaderFrame ignored), as a tine
	// serve from before it does. Tests use it.
	NoTineFrame bool
	// NoTineFrameBlocks serves the binary frame without version 2 (no
	// frame_blocks nor fetch_blocks in the capabilities, wire.HeaderFrame's
	// value 2 refused as any unknown version), as a tine serve from before
	// it does. Tests use it.
	NoTineFrameBlocks bool
	// NoTineFetchBlocks reads version 2 in uploads but never answers a
	// fetch with it (no fetch_blocks in the capabilities, a fetch's
	// wire.HeaderFrame 2 refused), as a tine serve from before version 2
	// fetch replies does. Tests use it.
	NoTineFetchBlocks bool
}

// Server is an OpenTine remote (opentine-remote/1) serving tine
// repositories, one per tenant, under Config.Root. It is an http.Handler.
type Server struct {
	cfg     Config
	auth    *tokenAuth
	oidc    *oidcVerifier
	uploads *uploadStore
	audit   *auditLog
	anon    anonState
	// packSlots bounds concurrent fetch and install work, walkSlots
	// concurrent negotiations and searches (two each, spec §11).
	packSlots, walkSlots chan struct{}

	mu      sync.Mutex
	tenants map[string]*plumbing.Repo
	// locks serialize, per tenant, pack installs (so two finalizing
	// uploads never validate against each other's half-written objects)
	// and ref updates (so the server's own requests never meet each
	// other's ref guards).
	locks map[string]*sync.Mutex
	// recent keeps what installs stored, for the catalog update after a
	// ref moves.
	recent *recentObjects
}

// New checks cfg and returns its Server. It creates Root if needed.
func New(cfg Config) (*Server, error) {
	if cfg.Root == "" {
		return nil, fmt.Errorf("%w: no root directory", ErrBadConfig)
	}
	if err := wire.CheckTenant(cfg.Tenant); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	if !cfg.Role.Valid() {
		return nil, fmt.Errorf("%w: role %q (use reader, writer or admin)", ErrBadConfig, cfg.Role)
	}
	if cfg.ObjectFormat == "" {
		cfg.ObjectFormat = objects.BLAKE3
	}
	if !cfg.ObjectFormat.Valid() {
		return nil, fmt.Errorf("%w: object format %q (use blake3 or sha256)", ErrBadConfig, cfg.ObjectFormat)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = wire.MaxRequestBytes
	}
	if cfg.MaxUploadBytes <= 0 || cfg.MaxUploadBytes > wire.MaxUploadBytes {
		cfg.MaxUploadBytes = wire.MaxUploadBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := normalizeTine(&cfg); err != nil {
		return nil, err
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("%w: root %s: %w", ErrBadConfig, cfg.Root, err)
	}
	cfg.Root = root
	auth, err := newTokenAuth(cfg.Token, cfg.Tenant, cfg.Role)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, auth: auth,
		packSlots: make(chan struct{}, 2), walkSlots: make(chan struct{}, 2),
		tenants: map[string]*plumbing.Repo{}, locks: map[string]*sync.Mutex{}, recent: newRecentObjects()}
	s.uploads = newUploadStore(filepath.Join(root, "uploads"), cfg.Now)
	if s.audit, err = openAuditLog(auditDir(root), cfg.AuditMaxBytes); err != nil {
		return nil, err
	}
	if cfg.OIDC != nil {
		if s.oidc, err = newOIDCVerifier(*cfg.OIDC, cfg.Now); err != nil {
			return nil, err
		}
	}
	// The identity's tenant repository, if it exists, must open with the
	// advertised format: refuse to start rather than fail every request.
	if _, err := s.repo(cfg.Tenant, false); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	return s, nil
}

// Close writes the refused authentications still waiting for their audit
// row and closes the tenant repositories the server opened.
func (s *Server) Close() error {
	s.flushAnon()
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for t, r := range s.tenants {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.tenants, t)
	}
	return first
}

// HTTPServer returns an http.Server serving s on addr with the spec's
// timeouts: 10 s for the request line and headers, 30 s idle, 60 s for a
// whole request and for a whole reply.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{Addr: addr, Handler: s, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 30 * time.Second,
		MaxHeaderBytes: 64 << 10}
}

// capabilities is the anonymous capabilities document (spec §5.1), fields
// in key order.
type capabilities struct {
	Authentication  []string `json:"authentication"`
	Filters         []string `json:"filters"`
	ObjectFormat    string   `json:"object_format"`
	PackFormat      string   `json:"pack_format"`
	Protocol        string   `json:"protocol"`
	ResumableUpload bool     `json:"resumable_upload"`
	Roles           []string `json:"roles"`
	// Tine is tine's extension (wire.TineCaps); OpenTine clients ignore
	// it, and a server hiding the extension leaves it out.
	Tine *wire.TineCaps `json:"tine,omitempty"`
}

// call is one authenticated tenant request.
type call struct {
	w        http.ResponseWriter
	r        *http.Request
	id       identity
	tenant   string
	resource string
	// action and details make the request's audit row.
	action  action
	details map[string]string
}

// ServeHTTP routes a request (spec §2, §4): capabilities without
// authentication, then the bearer token on every other path (401 even on
// unknown ones), the tenant name (400), the role (403) and the endpoint.
// Every request but capabilities is audited once answered (spec §13).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimRight(r.URL.Path, "/")
	if path == "/v1/capabilities" && r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, capabilities{
			Authentication: s.authMethods(), Filters: []string{"depth", "object_type"},
			ObjectFormat: wire.FormatFor(s.cfg.ObjectFormat), PackFormat: wire.PackFormat,
			Protocol: wire.Protocol, ResumableUpload: true, Roles: []string{"reader", "writer", "admin"},
			Tine: s.tineCaps()})
		return
	}
	id, reason := s.authenticate(r)
	if reason != "" {
		s.fail(w, r, &httpError{status: http.StatusUnauthorized, text: textAuth, detail: reason})
		s.auditAnon(r, reason)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	c := &call{w: sw, r: r, id: id, tenant: serverTenant}
	s.serve(c, path)
	s.auditCall(c, sw.status)
}

// serve answers an authenticated request.
func (s *Server) serve(c *call, path string) {
	w, r := c.w, c.r
	rest, ok := strings.CutPrefix(path, "/v1/tenants/")
	if !ok {
		s.fail(w, r, notFound("no such route"))
		return
	}
	tenant, resource, _ := strings.Cut(rest, "/")
	c.resource = resource
	if resource == "" {
		s.fail(w, r, invalid("no resource after the tenant"))
		return
	}
	if err := wire.CheckTenant(tenant); err != nil {
		s.fail(w, r, invalid(err.Error()))
		return
	}
	c.tenant = tenant
	act, h := s.route(c)
	c.action = act
	if h == nil {
		s.fail(w, r, notFound("no such route"))
		return
	}
	if !c.id.allows(act, tenant, s.cfg.WriterPromotes) {
		s.fail(w, r, c.id.refusal(act, tenant))
		return
	}
	if herr := h(c); herr != nil {
		s.fail(w, r, herr)
	}
}

// route picks the handler and the action it needs.
func (s *Server) route(c *call) (action, func(*call) *httpError) {
	m, res := c.r.Method, c.resource
	switch {
	case res == "refs" && m == http.MethodGet:
		return actReadRef, s.getRefs
	case strings.HasPrefix(res, "refs/") && m == http.MethodPut:
		return actUpdateRef, s.putRef
	case res == "negotiate" && m == http.MethodPost:
		return actNegotiate, s.negotiate
	case res == "fetch" && m == http.MethodPost:
		return actFetch, s.fetch
	case res == "packs" && m == http.MethodPost:
		return actUpload, s.postPacks
	case strings.HasPrefix(res, "packs/") && (m == http.MethodPatch || m == http.MethodHead):
		return actUpload, s.uploadChunk
	case res == "search" && m == http.MethodPost:
		return actSearch, s.search
	case res == "audit/verify" && m == http.MethodGet:
		return actAudit, s.auditVerify
	}
	return "", nil
}

// fail answers e and logs its detail.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, e *httpError) {
	if s.cfg.Log != nil {
		s.cfg.Log(fmt.Sprintf("%s %s: %d %s", r.Method, logPath(r.URL.Path), e.status, e.Error()))
	}
	if e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, e, s.explains(r))
}

// logPath shortens upload paths to /packs/<upload> so upload ids stay out
// of logs, as the reference server's request log does.
func logPath(p string) string {
	if i := strings.Index(p, "/packs/"); i >= 0 {
		return p[:i] + "/packs/<upload>"
	}
	return p
}

// slot takes one of sem's slots, waiting at most slotWait; the returned
// function gives it back.
func slot(ctx context.Context, sem chan struct{}) (func(), *httpError) {
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-t.C:
		return nil, &httpError{status: http.StatusServiceUnavailable, text: textBusy}
	case <-ctx.Done():
		return nil, &httpError{status: http.StatusServiceUnavailable, text: textBusy, detail: ctx.Err().Error()}
	}
}

// ObjectFormat returns the hash profile named name ("blake3" or
// "sha256"), for Config.ObjectFormat; New refuses any other name.
func ObjectFormat(name string) objects.Algo { return objects.Algo(name) }
