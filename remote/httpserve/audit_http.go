package httpserve

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tinehq/tine/remote/wire"
)

// The actor and tenant of rows no identity or tenant applies to (spec
// §13: "_server" when no tenant applies).
const (
	anonActor    = "anonymous"
	serverTenant = "_server"
)

// anonWindow is the batching period of refused authentications: at most
// one row per tenant and reason per window (spec §13), so a flood of bad
// tokens cannot flood the log.
const anonWindow = time.Minute

// maxAnonKeys bounds the batching table: tenants in refused requests are
// the caller's choice, so beyond this many the rows go to serverTenant.
const maxAnonKeys = 1024

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// detail adds a key to the call's audit row details.
func (c *call) detail(k, v string) {
	if c.details == nil {
		c.details = map[string]string{}
	}
	c.details[k] = v
}

// outcome names a reply status as spec §13's outcomes do.
func outcome(status int) string {
	switch {
	case status == http.StatusConflict:
		return "conflict"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "denied"
	case status >= 200 && status < 300:
		return "ok"
	}
	return "error"
}

// auditCall writes the row of an authenticated request. The details hold
// the method, the resource (upload ids hidden, at most 512 bytes) and the
// status, never a token, header or body. A failed append is reported on
// the server's log: the reply has already gone.
func (s *Server) auditCall(c *call, status int) {
	c.detail("method", c.r.Method)
	c.detail("status", strconv.Itoa(status))
	res := strings.TrimPrefix(logPath("/"+c.resource), "/")
	if len(res) > 512 {
		res = strings.ToValidUTF8(res[:512], "")
	}
	c.detail("resource", res)
	act := string(c.action)
	if act == "" {
		act = "unknown"
	}
	s.writeRow(&auditRow{Action: act, Actor: c.id.subject, Details: c.details,
		Outcome: outcome(status), Tenant: c.tenant})
}

// anonBatch counts the refused authentications of one tenant and reason
// since its last row.
type anonBatch struct {
	last    time.Time
	pending int
}

// anonState is the batching table of refused authentications.
type anonState struct {
	mu      sync.Mutex
	batches map[string]*anonBatch
}

// auditAnon records a refused authentication (action authenticate), at
// most one row per anonWindow per tenant and reason; the row counts the
// refusals since the one before.
func (s *Server) auditAnon(r *http.Request, reason string) {
	tenant := serverTenant
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v1/tenants/"); ok {
		t, _, _ := strings.Cut(rest, "/")
		if wire.CheckTenant(t) == nil {
			tenant = t
		}
	}
	now := s.cfg.Now()
	s.anon.mu.Lock()
	if s.anon.batches == nil {
		s.anon.batches = map[string]*anonBatch{}
	}
	if len(s.anon.batches) >= maxAnonKeys && s.anon.batches[tenant+"\x00"+reason] == nil {
		for k, b := range s.anon.batches {
			if b.pending == 0 && now.Sub(b.last) >= anonWindow {
				delete(s.anon.batches, k)
			}
		}
		if len(s.anon.batches) >= maxAnonKeys {
			tenant = serverTenant
		}
	}
	key := tenant + "\x00" + reason
	b := s.anon.batches[key]
	if b == nil {
		b = &anonBatch{}
		s.anon.batches[key] = b
	}
	if !b.last.IsZero() && now.Sub(b.last) < anonWindow {
		b.pending++
		s.anon.mu.Unlock()
		return
	}
	n := b.pending + 1
	b.pending, b.last = 0, now
	s.anon.mu.Unlock()
	s.writeAnonRow(tenant, reason, n)
}

func (s *Server) writeAnonRow(tenant, reason string, n int) {
	s.writeRow(&auditRow{Action: "authenticate", Actor: anonActor, Outcome: "denied", Tenant: tenant,
		Details: map[string]string{"failures": strconv.Itoa(n), "reason": reason}})
}

// flushAnon writes the refusals still pending, at Close.
func (s *Server) flushAnon() {
	s.anon.mu.Lock()
	type pend struct {
		tenant, reason string
		n              int
	}
	var ps []pend
	for k, b := range s.anon.batches {
		if b.pending > 0 {
			t, reason, _ := strings.Cut(k, "\x00")
			ps = append(ps, pend{t, reason, b.pending})
			b.pending = 0
		}
	}
	s.anon.mu.Unlock()
	for _, p := range ps {
		s.writeAnonRow(p.tenant, p.reason, p.n)
	}
}

// writeRow stamps and appends row, reporting a failure on the log.
func (s *Server) writeRow(row *auditRow) {
	row.EventID = newEventID()
	row.Timestamp = s.cfg.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	if row.Details == nil {
		row.Details = map[string]string{}
	}
	if err := s.audit.append(row); err != nil && s.cfg.Log != nil {
		s.cfg.Log("audit: " + err.Error())
	}
}
