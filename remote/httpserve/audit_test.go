package httpserve_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tinehq/tine/remote/httpserve"
)

const verified = `{"ok":true,"status":"verified","warnings":[]}`
const invalidChain = `{"ok":false,"status":"invalid","warnings":[]}`

// auditRows reads the rows of root's current audit log.
func auditRows(t *testing.T, root string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "audit", "log"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("row %s: %v", line, err)
		}
		rows = append(rows, m)
	}
	return rows
}

// verifyAudit asks a fresh admin server on root for audit/verify.
func verifyAudit(t *testing.T, root string) string {
	t.Helper()
	ts := startServer(t, httpserve.Config{Root: root, Role: httpserve.RoleAdmin})
	status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/audit/verify", "", "", nil)
	if status != 200 {
		t.Fatalf("audit/verify = %d %s", status, body)
	}
	ts.http.Close()
	ts.srv.Close()
	return body
}

func TestAuditVerifyRoles(t *testing.T) {
	for _, role := range []httpserve.Role{httpserve.RoleReader, httpserve.RoleWriter} {
		ts := startServer(t, httpserve.Config{Role: role})
		if status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/audit/verify", "", "", nil); status != 403 || body != `{"error":"forbidden"}` {
			t.Errorf("%s: audit/verify = %d %s, want 403", role, status, body)
		}
	}
	ts := startServer(t, httpserve.Config{Role: httpserve.RoleAdmin})
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/audit/verify", "-", "", nil); status != 401 {
		t.Errorf("anonymous audit/verify = %d, want 401", status)
	}
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/other/audit/verify", "", "", nil); status != 403 {
		t.Errorf("audit/verify of another tenant = %d, want 403", status)
	}
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/audit/verify", "", "", nil); status != 404 {
		t.Errorf("POST audit/verify = %d, want 404", status)
	}
	if status, body, _ := ts.raw(t, "GET", "/v1/tenants/acme/audit/verify", "", "", nil); status != 200 || body != verified {
		t.Errorf("audit/verify = %d %s, want 200 %s", status, body, verified)
	}
}

// TestAuditRows checks what a row holds: every request but capabilities,
// the spec's fields and outcomes, never the token.
func TestAuditRows(t *testing.T) {
	root := t.TempDir()
	ts := startServer(t, httpserve.Config{Root: root, Role: httpserve.RoleReader})
	ts.raw(t, "GET", "/v1/capabilities", "-", "", nil)
	ts.raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil)
	ts.raw(t, "PUT", "/v1/tenants/acme/refs/heads/main", "", "", []byte(`{"new":null}`))
	ts.raw(t, "GET", "/v1/tenants/acme/nowhere", "", "", nil)
	ts.raw(t, "POST", "/v1/tenants/acme/search", "", "", []byte(`{"type":"run"}`))
	rows := auditRows(t, root)
	// Paths the caller chooses, with bytes that are not UTF-8 or longer
	// than a row keeps, still make rows the chain verifies.
	ts.raw(t, "GET", "/v1/tenants/acme/refs/%FF%FEx", "", "", nil)
	ts.raw(t, "GET", "/v1/tenants/acme/"+strings.Repeat("%C3%A9", 400), "", "", nil)
	ts.raw(t, "GET", "/v1/tenants/acme/x%E2%80%A8<&>", "", "", nil)
	want := [][3]string{{"read_ref", "ok", "200"}, {"update_ref", "denied", "403"}, {"unknown", "error", "404"}, {"search", "ok", "200"}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		d := r["details"].(map[string]any)
		if r["action"] != w[0] || r["outcome"] != w[1] || d["status"] != w[2] || r["actor"] != httpserve.Subject || r["tenant"] != "acme" {
			t.Errorf("row %d = %v, want action %s outcome %s status %s", i, r, w[0], w[1], w[2])
		}
		ts, err := time.Parse(time.RFC3339Nano, r["timestamp"].(string))
		if err != nil || ts.Location() != time.UTC || len(r["event_id"].(string)) != 36 || r["seq"].(float64) != float64(i+1) {
			t.Errorf("row %d: timestamp %v event_id %v seq %v", i, r["timestamp"], r["event_id"], r["seq"])
		}
	}
	if rows[1]["details"].(map[string]any)["resource"] != "refs/heads/main" {
		t.Errorf("update_ref details = %v", rows[1]["details"])
	}
	b, _ := os.ReadFile(filepath.Join(root, "audit", "log"))
	if bytes.Contains(b, []byte(testToken)) || bytes.Contains(b, []byte(`"new"`)) {
		t.Errorf("the audit log holds a token or a body: %s", b)
	}
	for name, perm := range map[string]os.FileMode{"key": 0o600, "log": 0o600, "head": 0o600} {
		if fi, err := os.Stat(filepath.Join(root, "audit", name)); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("audit/%s: mode %v (%v), want %v", name, fi.Mode().Perm(), err, perm)
		}
	}
	if got := verifyAudit(t, root); got != verified {
		t.Errorf("untouched chain: verify = %s", got)
	}
}

// TestAnonymousRefusalsBatched: at most one row per minute per tenant and
// reason; the next row counts the refusals in between, and Close writes
// the ones still pending.
func TestAnonymousRefusalsBatched(t *testing.T) {
	root := t.TempDir()
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts := startServer(t, httpserve.Config{Root: root, Now: clock})
	for i := 0; i < 5; i++ {
		ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer not-the-token-but-long-enough", "", nil)
	}
	ts.raw(t, "GET", "/v1/tenants/acme/refs", "-", "", nil)
	ts.raw(t, "GET", "/elsewhere", "-", "", nil)
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer not-the-token-but-long-enough", "", nil)
	ts.raw(t, "GET", "/v1/tenants/acme/refs", "Bearer not-the-token-but-long-enough", "", nil)
	ts.http.Close()
	ts.srv.Close()
	var got []string
	for _, r := range auditRows(t, root) {
		d := r["details"].(map[string]any)
		if r["action"] != "authenticate" || r["outcome"] != "denied" || r["actor"] != "anonymous" {
			t.Errorf("row %v", r)
		}
		got = append(got, r["tenant"].(string)+" "+d["reason"].(string)+" "+d["failures"].(string))
	}
	want := []string{"acme unknown static token 1", "acme no bearer token 1", "_server no bearer token 1",
		"acme unknown static token 5", "acme unknown static token 1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if b, _ := os.ReadFile(filepath.Join(root, "audit", "log")); bytes.Contains(b, []byte("not-the-token")) {
		t.Errorf("a refused token reached the audit log")
	}
}

// chainRoot returns a root whose audit chain holds n rows, its server
// closed.
func chainRoot(t *testing.T, n int, cfg httpserve.Config) string {
	t.Helper()
	cfg.Root = t.TempDir()
	ts := startServer(t, cfg)
	for i := 0; i < n; i++ {
		ts.raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil)
	}
	ts.http.Close()
	ts.srv.Close()
	return cfg.Root
}

func editLog(t *testing.T, root string, edit func(lines [][]byte) [][]byte) {
	t.Helper()
	p := filepath.Join(root, "audit", "log")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines = lines[:len(lines)-1]
	if err := os.WriteFile(p, bytes.Join(edit(lines), nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAuditTamperDetected(t *testing.T) {
	cases := map[string]func(lines [][]byte) [][]byte{
		"one byte changed": func(l [][]byte) [][]byte {
			l[2] = bytes.Replace(l[2], []byte(`"status":"200"`), []byte(`"status":"201"`), 1)
			return l
		},
		"one MAC digit changed": func(l [][]byte) [][]byte {
			i := bytes.Index(l[3], []byte(`"mac":"`)) + 7
			l[3][i] ^= 1
			return l
		},
		"a row deleted":      func(l [][]byte) [][]byte { return append(l[:2], l[3:]...) },
		"the last row gone":  func(l [][]byte) [][]byte { return l[:len(l)-1] },
		"two rows reordered": func(l [][]byte) [][]byte { l[1], l[2] = l[2], l[1]; return l },
		"a row duplicated":   func(l [][]byte) [][]byte { return append(l[:3], l[2:]...) },
		"whitespace added":   func(l [][]byte) [][]byte { l[0] = append([]byte(" "), l[0]...); return l },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			root := chainRoot(t, 5, httpserve.Config{})
			editLog(t, root, edit)
			if got := verifyAudit(t, root); got != invalidChain {
				t.Errorf("verify = %s, want %s", got, invalidChain)
			}
		})
	}
	root := chainRoot(t, 5, httpserve.Config{})
	if got := verifyAudit(t, root); got != verified {
		t.Errorf("untouched: verify = %s", got)
	}
}

// TestAuditTornRowSetAside: a last row cut by a crash mid-write (Linux
// stops a write part-way for SIGKILL) does not keep the server down: the
// next start moves its bytes to audit/torn.<ns>, cuts the log back to its
// last whole row, and the chain goes on and verifies, with one warning
// naming the set-aside file. Before, every later start was refused until
// the operator moved the whole audit directory aside.
func TestAuditTornRowSetAside(t *testing.T) {
	root := chainRoot(t, 3, httpserve.Config{})
	p := filepath.Join(root, "audit", "log")
	whole, _ := os.ReadFile(p)
	// The start of a next row, as a write stopped part-way leaves it (the
	// head never names such a row: it moves after the row's fsync).
	last := whole[bytes.LastIndexByte(whole[:len(whole)-1], '\n')+1:]
	torn := append(bytes.Clone(whole), last[:len(last)/2]...)
	if err := os.WriteFile(p, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	got := verifyAudit(t, root) // a start, an audited request, the verify
	set, _ := filepath.Glob(filepath.Join(root, "audit", "torn.*"))
	if len(set) != 1 {
		t.Fatalf("set-aside files %v, want one", set)
	}
	if kept, _ := os.ReadFile(set[0]); !bytes.Equal(kept, torn[len(whole):]) {
		t.Errorf("set aside %q, want the torn bytes %q", kept, torn[len(whole):])
	}
	if after, _ := os.ReadFile(p); !bytes.HasPrefix(after, whole) {
		t.Errorf("the log's whole rows were changed")
	}
	auditRows(t, root) // every line a whole row: the fragment is gone
	want := `{"ok":true,"status":"verified","warnings":["audit/` + filepath.Base(set[0]) + ` holds a row a crash tore mid-write, set aside (not part of the chain)"]}`
	if got != want {
		t.Errorf("verify = %s, want %s", got, want)
	}
}

// TestAuditKeyGuarded: the key is the owner's alone, and a chain without
// its key is refused rather than restarted.
func TestAuditKeyGuarded(t *testing.T) {
	root := chainRoot(t, 1, httpserve.Config{})
	key := filepath.Join(root, "audit", "key")
	cfg := httpserve.Config{Root: root, Tenant: "acme", Token: []byte(testToken), Role: httpserve.RoleAdmin}
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := httpserve.New(cfg); !errors.Is(err, httpserve.ErrAudit) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("New with a world-readable key = %v", err)
	}
	if err := os.Remove(key); err != nil {
		t.Fatal(err)
	}
	if _, err := httpserve.New(cfg); !errors.Is(err, httpserve.ErrAudit) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("New without the key = %v", err)
	}
	// No tenant repository ever holds the key.
	if err := filepath.Walk(filepath.Join(root, "tenants"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Name() == "key" {
			t.Errorf("key inside a tenant: %s", p)
		}
		return nil
	}); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// TestAuditSegments: a full log becomes a segment, the chain runs across
// segments; a missing middle segment breaks it, archiving the oldest does
// not.
func TestAuditSegments(t *testing.T) {
	root := chainRoot(t, 30, httpserve.Config{AuditMaxBytes: 2000})
	segs, _ := filepath.Glob(filepath.Join(root, "audit", "log.*"))
	if len(segs) < 3 {
		t.Fatalf("%d segments, want at least 3", len(segs))
	}
	for _, s := range append(segs, filepath.Join(root, "audit", "log")) {
		if fi, err := os.Stat(s); err != nil || fi.Size() > 2000 {
			t.Errorf("%s: %v, size over the bound", s, err)
		}
	}
	if got := verifyAudit(t, root); got != verified {
		t.Fatalf("verify = %s", got)
	}
	// Oldest first by number, not by name.
	slices.SortFunc(segs, func(a, b string) int { return segNum(a) - segNum(b) })
	oldest, middle := segs[0], segs[2]
	if err := os.Rename(oldest, filepath.Join(t.TempDir(), "archived")); err != nil {
		t.Fatal(err)
	}
	if got := verifyAudit(t, root); got != verified {
		t.Errorf("after archiving the oldest segment: verify = %s", got)
	}
	if err := os.Remove(middle); err != nil {
		t.Fatal(err)
	}
	if got := verifyAudit(t, root); got != invalidChain {
		t.Errorf("without a middle segment: verify = %s", got)
	}
}

func segNum(p string) int {
	n := 0
	for _, c := range strings.TrimPrefix(filepath.Ext(p), ".") {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestAuditConcurrentServers: two servers on one root extend one chain.
func TestAuditConcurrentServers(t *testing.T) {
	root := t.TempDir()
	a := startServer(t, httpserve.Config{Root: root})
	b, err := httpserve.New(httpserve.Config{Root: root, Tenant: "acme", Token: []byte(testToken), Role: httpserve.RoleWriter})
	if err != nil {
		t.Fatal(err)
	}
	hb := httptest.NewServer(b)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if i%2 == 0 {
					a.raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil)
				} else {
					(&testServer{http: hb}).raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil)
				}
			}
		}(i)
	}
	wg.Wait()
	hb.Close()
	b.Close()
	a.http.Close()
	a.srv.Close()
	if n := len(auditRows(t, root)); n != 40 {
		t.Errorf("%d rows, want 40", n)
	}
	if got := verifyAudit(t, root); got != verified {
		t.Errorf("verify = %s", got)
	}
}

// TestAuditHeadBehindAdopted: a head left behind by a crash (its rename
// not yet durable) is moved forward at the next start over rows whose MACs
// hold; a row without the key's MAC is not adopted, and verification
// says so.
func TestAuditHeadBehindAdopted(t *testing.T) {
	root := chainRoot(t, 2, httpserve.Config{})
	head := filepath.Join(root, "audit", "head")
	old, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, httpserve.Config{Root: root})
	for i := 0; i < 3; i++ {
		ts.raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil)
	}
	ts.http.Close()
	ts.srv.Close()
	if err := os.WriteFile(head, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := verifyAudit(t, root); got != verified {
		t.Errorf("head three rows behind: verify = %s, want it adopted and verified", got)
	}
	if n := len(auditRows(t, root)); n != 6 {
		t.Errorf("%d rows, want 6", n)
	}

	// A row appended by someone without the key is not adopted.
	root = chainRoot(t, 2, httpserve.Config{})
	editLog(t, root, func(l [][]byte) [][]byte {
		forged := bytes.Replace(l[1], []byte(`"seq":2`), []byte(`"seq":3`), 1)
		return append(l, forged)
	})
	if got := verifyAudit(t, root); got != invalidChain {
		t.Errorf("forged row: verify = %s", got)
	}
}

// TestAuditFrontCutDetected: rows cut from the front of audit/log are
// found even when no segment precedes it (the head records where the log
// begins), while archiving the oldest segments stays allowed.
func TestAuditFrontCutDetected(t *testing.T) {
	for _, n := range []int{1, 2} {
		root := chainRoot(t, 5, httpserve.Config{})
		editLog(t, root, func(l [][]byte) [][]byte { return l[n:] })
		if got := verifyAudit(t, root); got != invalidChain {
			t.Errorf("the first %d rows cut, no segment: verify = %s, want %s", n, got, invalidChain)
		}
	}
	// With segments: archive all of them, then cut the log's front.
	root := chainRoot(t, 30, httpserve.Config{AuditMaxBytes: 2000})
	segs, _ := filepath.Glob(filepath.Join(root, "audit", "log.*"))
	if len(segs) == 0 {
		t.Fatal("no segment")
	}
	for _, s := range segs {
		if err := os.Rename(s, filepath.Join(t.TempDir(), "archived")); err != nil {
			t.Fatal(err)
		}
	}
	if got := verifyAudit(t, root); got != verified {
		t.Fatalf("every segment archived: verify = %s", got)
	}
	editLog(t, root, func(l [][]byte) [][]byte { return l[1:] })
	if got := verifyAudit(t, root); got != invalidChain {
		t.Errorf("every segment archived, then the log's first row cut: verify = %s", got)
	}
}

// TestAuditHeadBehindAcrossSegment: a head left behind by a crash, with a
// segment closed in the rows after it, is adopted with the new log's
// first row, and the chain verifies.
func TestAuditHeadBehindAcrossSegment(t *testing.T) {
	root := chainRoot(t, 2, httpserve.Config{AuditMaxBytes: 2000})
	head := filepath.Join(root, "audit", "head")
	old, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, httpserve.Config{Root: root, AuditMaxBytes: 2000})
	for i := 0; i < 10; i++ {
		ts.raw(t, "GET", "/v1/tenants/acme/refs", "", "", nil)
	}
	ts.http.Close()
	ts.srv.Close()
	if segs, _ := filepath.Glob(filepath.Join(root, "audit", "log.*")); len(segs) == 0 {
		t.Fatal("no segment closed after the old head")
	}
	if err := os.WriteFile(head, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := verifyAudit(t, root); got != verified {
		t.Errorf("head behind a closed segment: verify = %s, want it adopted and verified", got)
	}
}
