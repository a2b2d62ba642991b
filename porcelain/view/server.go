package view

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// assets are the page, its scripts and its style sheet: plain files
// written by hand, embedded so the binary needs nothing else.
//
//go:embed assets
var assets embed.FS

// ContentSecurityPolicy is sent with every response: the page may load
// only its own scripts, style sheet and API, never inline code, frames,
// forms or anything off its origin.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Server is the read-only web view of one repository: the page and a
// JSON API under /api/, answering GET and HEAD only. It checks the Host
// header against the loopback addresses it was told it listens on, so a
// page of another site cannot reach it through a rebound DNS name.
type Server struct {
	r     *plumbing.Repo
	mux   *http.ServeMux
	hosts map[string]bool

	// mu serialises repository reads and guards snap.
	mu   sync.Mutex
	snap *snapshot
}

// NewServer returns the view of r. Call Listening with the listener's
// address before serving.
func NewServer(r *plumbing.Repo) *Server {
	s := &Server{r: r, mux: http.NewServeMux(), hosts: map[string]bool{}}
	static, _ := fs.Sub(assets, "assets") // the directory is embedded above
	files := http.FileServerFS(static)
	s.mux.Handle("GET /{$}", files)
	s.mux.Handle("GET /dom.js", files)
	s.mux.Handle("GET /graph.js", files)
	s.mux.Handle("GET /panels.js", files)
	s.mux.Handle("GET /view.css", files)
	s.mux.Handle("GET /favicon.svg", files)
	s.mux.HandleFunc("GET /api/graph", s.api(s.handleGraph))
	s.mux.HandleFunc("GET /api/rows", s.api(s.handleRows))
	s.mux.HandleFunc("GET /api/event/{oid}", s.api(s.handleEvent))
	s.mux.HandleFunc("GET /api/blob/{oid}", s.api(s.handleBlob))
	s.mux.HandleFunc("GET /api/run/{oid}", s.api(s.handleRun))
	s.mux.HandleFunc("GET /api/diff", s.api(s.handleDiff))
	s.mux.HandleFunc("GET /api/table", s.api(s.handleTable))
	return s
}

// Listening records the address the server listens on: requests must
// name it (the address itself, such as 127.0.0.2:PORT, or
// 127.0.0.1:PORT, [::1]:PORT or localhost:PORT) as their Host.
func (s *Server) Listening(addr net.Addr) {
	_, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return
	}
	// The address tine view prints; any loopback IP may be listened on.
	s.hosts[addr.String()] = true
	for _, h := range []string{"127.0.0.1", "[::1]", "localhost"} {
		s.hosts[h+":"+port] = true
	}
}

// Warm builds the snapshot of the refs now, so the first page is quick.
func (s *Server) Warm(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.current(ctx)
	return err
}

// ServeHTTP answers GET and HEAD requests addressed to the server's own
// host; every response carries the security headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !s.hosts[req.Host] {
		http.Error(w, "tine view answers only requests to its own loopback address", http.StatusMisdirectedRequest)
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "tine view is read-only", http.StatusMethodNotAllowed)
		return
	}
	s.mux.ServeHTTP(w, req)
}

// errBadRequest marks an error caused by the request's parameters.
var errBadRequest = errors.New("bad request")

// MaxAnswerBytes bounds one JSON answer. Each endpoint cuts the recorded
// text it shows, but a diff or a runs table carries whatever its runs
// recorded (a model name of megabytes in every aligned pair); past the
// bound the answer is an error that names the CLI verb, not a download
// the page would choke on.
const MaxAnswerBytes = 8 << 20

// api wraps a JSON handler: it runs under s.mu, and its result or error
// is written as JSON ({"error": "..."} with 400 for a bad parameter, 404
// for an object the store does not hold, 500 otherwise).
func (s *Server) api(fn func(ctx context.Context, req *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		s.mu.Lock()
		res, err := fn(req.Context(), req)
		s.mu.Unlock()
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		// Encoding escapes <, > and & in strings: the JSON is data even
		// if something were to sniff it as HTML.
		var body bytes.Buffer
		if err == nil {
			if err = json.NewEncoder(&body).Encode(res); err == nil && body.Len() > MaxAnswerBytes {
				err = fmt.Errorf("%s: the answer is %d bytes, more than the view sends (%d): %w; tine diff, tine runs or tine show give it whole",
					req.URL.Path, body.Len(), MaxAnswerBytes, errTooLarge)
			}
		}
		if err != nil {
			code := http.StatusInternalServerError
			switch {
			case errors.Is(err, errBadRequest):
				code = http.StatusBadRequest
			case errors.Is(err, errTooLarge):
				code = http.StatusUnprocessableEntity
			case errors.Is(err, objects.ErrNotFound), errors.Is(err, plumbing.ErrUnknownRevision), errors.Is(err, plumbing.ErrBeyondShallow):
				code = http.StatusNotFound
			}
			body.Reset()
			_ = json.NewEncoder(&body).Encode(map[string]string{"error": err.Error()})
			w.WriteHeader(code)
		}
		_, _ = w.Write(body.Bytes())
	}
}

// errTooLarge marks an answer over MaxAnswerBytes.
var errTooLarge = errors.New("too large")

// intParam reads a non-negative integer query parameter, def when absent.
func intParam(req *http.Request, name string, def, max int) (int, error) {
	v := req.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > max {
		return 0, errorf(errBadRequest, "%s must be a whole number from 0 to %d", name, max)
	}
	return n, nil
}
