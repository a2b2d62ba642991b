package view_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/trust"
	"github.com/tinehq/tine/porcelain/view"
)

// get requests base+path with method and host (the URL's when ""), and
// returns the status, headers and body.
func get(t *testing.T, method, url, host string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, body
}

func TestServerRefusesWritesAndOtherHosts(t *testing.T) {
	r := fixture(t)
	before, err := r.Refs().Read(t.Context(), "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	base := serve(t, r)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, path := range []string{"", "api/graph", "api/diff?a=heads/main&b=experiments/retry"} {
			code, h, _ := get(t, m, base+path, "")
			if code != http.StatusMethodNotAllowed || h.Get("Allow") != "GET, HEAD" {
				t.Fatalf("%s /%s: %d, Allow %q", m, path, code, h.Get("Allow"))
			}
		}
	}
	// A page of another site reaching the port through a rebound name.
	if code, _, _ := get(t, http.MethodGet, base+"api/graph", "attacker.example:80"); code != http.StatusMisdirectedRequest {
		t.Fatalf("foreign Host: %d", code)
	}
	after, err := r.Refs().Read(t.Context(), "heads/main")
	if err != nil || after != before {
		t.Fatalf("heads/main moved: %s -> %s (%v)", before, after, err)
	}
}

// TestServerAnswersItsOwnAddress: a server listening on another loopback
// IP than 127.0.0.1 (tine view --addr 127.0.0.2:0) answers the address it
// prints, and still refuses other hosts.
func TestServerAnswersItsOwnAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this machine: %v", err)
	}
	srv := view.NewServer(fixture(t))
	srv.Listening(ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: time.Minute}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	base := "http://" + ln.Addr().String() + "/"
	if code, _, body := get(t, http.MethodGet, base+"api/graph", ""); code != http.StatusOK {
		t.Fatalf("GET %sapi/graph: %d %s", base, code, body)
	}
	if code, _, _ := get(t, http.MethodGet, base+"api/graph", "attacker.example:80"); code != http.StatusMisdirectedRequest {
		t.Fatalf("foreign Host: %d", code)
	}
}

func TestServerHeaders(t *testing.T) {
	base := serve(t, fixture(t))
	for _, path := range []string{"", "dom.js", "graph.js", "panels.js", "view.css", "favicon.svg", "api/graph", "api/rows?limit=99999", "nothing"} {
		code, h, _ := get(t, http.MethodGet, base+path, "")
		if h.Get("Content-Security-Policy") != view.ContentSecurityPolicy || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("/%s (%d): headers %v", path, code, h)
		}
		if strings.HasPrefix(path, "api/") && !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Fatalf("/%s: content type %q", path, h.Get("Content-Type"))
		}
	}
	for _, js := range []string{"dom.js", "graph.js", "panels.js"} {
		if code, _, body := get(t, http.MethodGet, base+js, ""); code != 200 || strings.Contains(string(body), "innerHTML") {
			t.Fatalf("%s: %d", js, code)
		}
	}
}

func TestServerRowsAndBounds(t *testing.T) {
	r := fixture(t)
	base := serve(t, r)
	var info struct{ Events, Rows, Lanes int }
	_, _, body := get(t, http.MethodGet, base+"api/graph", "")
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	if info.Events != 8 || info.Lanes != 2 || info.Rows < info.Events {
		t.Fatalf("graph %+v", info)
	}
	var page struct {
		Offset int
		Rows   []struct {
			N int                     `json:"n"`
			E *struct{ Event string } `json:"e"`
		}
	}
	_, _, body = get(t, http.MethodGet, base+"api/rows?offset=1&limit=3", "")
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	if page.Offset != 1 || len(page.Rows) != 3 {
		t.Fatalf("rows page %+v", page)
	}
	// The hostile text is escaped in the JSON itself, too.
	_, _, body = get(t, http.MethodGet, base+"api/rows?limit=1000", "")
	if strings.Contains(string(body), "<script>") || !strings.Contains(string(body), `\u003cscript\u003e`) {
		t.Fatalf("rows JSON does not escape markup: %s", body)
	}
	for _, path := range []string{"api/rows?limit=1001", "api/rows?offset=-1", "api/rows?limit=x", "api/event/nope",
		"api/event/" + runstest.LoadRef(t, r, "heads/main").ID.String(), "api/diff?a=heads/main", "api/blob/" + strings.Repeat("a", 2000)} {
		code, _, body := get(t, http.MethodGet, base+path, "")
		var e struct{ Error string }
		if code != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Fatalf("/%s: %d %s", path, code, body)
		}
	}
}

// TestServerRowLabelsBounded: an event whose kind and model are a
// megabyte each is summarised in /api/rows in at most MaxLabelText bytes
// of each, so a page of rows stays small; the event panel has the field
// (cut at its own bound); a fork reason of a megabyte is cut in /api/graph.
func TestServerRowLabelsBounded(t *testing.T) {
	r := runstest.NewRepo(t)
	big := strings.Repeat("m", 1<<20)
	runstest.AppendEvent(t, r, "heads/main", `{"kind":"k`+big+`","model":"`+big+`"}`, runstest.FakeClock(epoch, time.Second))
	base := serve(t, r)
	var page struct {
		Rows []struct {
			E *struct{ Event, Kind, Label string } `json:"e"`
		}
	}
	code, _, body := get(t, http.MethodGet, base+"api/rows", "")
	if err := json.Unmarshal(body, &page); err != nil || code != http.StatusOK || len(page.Rows) != 1 || page.Rows[0].E == nil {
		t.Fatalf("rows: %d %.300s (%v)", code, body, err)
	}
	e := page.Rows[0].E
	// A fork whose recorded reason is a megabyte: /api/graph sends its
	// first 8 KiB.
	if _, err := runs.Fork(t.Context(), r, runs.ForkOptions{Source: "heads/main", From: e.Event, Ref: "experiments/why", Reason: big, Now: runstest.FakeClock(epoch, time.Second)}); err != nil {
		t.Fatal(err)
	}
	if code, _, body := get(t, http.MethodGet, base+"api/graph", ""); code != http.StatusOK || len(body) > 16<<10 || !strings.Contains(string(body), `"reason":"mmm`) {
		t.Fatalf("graph with a 1 MiB fork reason: %d, %d bytes", code, len(body))
	}
	if len(body) > 4*view.MaxLabelText+1024 || len(e.Kind) != view.MaxLabelText || len(e.Label) != view.MaxLabelText {
		t.Fatalf("rows page is %d bytes; kind %d bytes, label %d bytes; want each cut at %d", len(body), len(e.Kind), len(e.Label), view.MaxLabelText)
	}
	code, _, body = get(t, http.MethodGet, base+"api/event/"+e.Event, "")
	if code != http.StatusOK || !strings.Contains(string(body), `"name":"model"`) || len(body) > 64<<10 {
		t.Fatalf("event: %d, %d bytes", code, len(body))
	}
}

// TestServerAnswerBounded: the diff of two runs whose events record
// megabyte model names would be tens of megabytes of JSON; the view
// answers it with an error naming the bound and the CLI verb instead.
func TestServerAnswerBounded(t *testing.T) {
	r := runstest.NewRepo(t)
	for _, ref := range []string{"heads/a", "heads/b"} {
		for i := range 5 {
			model := strings.Repeat(string(rune('a'+i)), 1<<20)
			runstest.AppendEvent(t, r, ref, `{"kind":"model","model":"`+ref+model+`"}`, runstest.FakeClock(epoch, time.Second))
		}
	}
	base := serve(t, r)
	code, _, body := get(t, http.MethodGet, base+"api/diff?a=heads/a&b=heads/b", "")
	var e struct{ Error string }
	if code != http.StatusUnprocessableEntity || len(body) > 4096 || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "tine diff") {
		t.Fatalf("diff of megabyte events: %d, %d bytes: %.300s", code, len(body), body)
	}
	if code, _, _ := get(t, http.MethodGet, base+"api/graph", ""); code != http.StatusOK {
		t.Fatalf("graph: %d", code)
	}
}

// TestServerBlobPrefixVerified: a blob larger than MaxBlobView comes back
// cut to it; a damaged one is an error, never content.
func TestServerBlobPrefixVerified(t *testing.T) {
	r := runstest.NewRepo(t)
	big := strings.Repeat("0123456789abcdef\n", 200<<10/17)
	js, _ := json.Marshal(map[string]any{"kind": "tool", "output": big})
	runstest.AppendEvent(t, r, "heads/main", string(js), nil)
	tip := runstest.LoadRef(t, r, "heads/main").Events[0]
	base := serve(t, r)
	var bv struct {
		Size   int64
		Text   string
		Cut    bool
		Binary bool
	}
	code, _, body := get(t, http.MethodGet, base+"api/blob/"+tip.OutputBlob.String(), "")
	if err := json.Unmarshal(body, &bv); err != nil || code != 200 {
		t.Fatalf("%d %s %v", code, body, err)
	}
	if bv.Size != int64(len(big)) || !bv.Cut || len(bv.Text) != view.MaxBlobView || bv.Text != big[:view.MaxBlobView] {
		t.Fatalf("blob: size %d cut %v text %d bytes", bv.Size, bv.Cut, len(bv.Text))
	}
	// Damage the last byte of the stored blob (past the prefix shown).
	path, err := r.Loose().Path(tip.OutputBlob)
	if err != nil {
		t.Fatal(err)
	}
	// Appends write storage packs; reads find a loose copy first, so a
	// damaged loose copy is what the view must notice.
	if _, err := os.Stat(path); err != nil {
		o, err := r.Objects().Get(context.Background(), tip.OutputBlob)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Loose().Put(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, body = get(t, http.MethodGet, base+"api/blob/"+tip.OutputBlob.String(), "")
	if code != http.StatusInternalServerError || strings.Contains(string(body), "0123456789") {
		t.Fatalf("damaged blob: %d %.200s", code, body)
	}
	if _, err := r.Objects().Get(t.Context(), tip.OutputBlob); err == nil {
		t.Fatal("the damage was not damage")
	}
}

func TestServerMissingObject(t *testing.T) {
	r := fixture(t)
	base := serve(t, r)
	missing := "event:blake3:" + strings.Repeat("ab", 32)
	code, _, body := get(t, http.MethodGet, base+"api/event/"+missing, "")
	if code != http.StatusNotFound || !strings.Contains(string(body), "error") {
		t.Fatalf("missing event: %d %s", code, body)
	}
}

// TestServerShallowObject: an event the shallow file lists is not stored
// by design; asking for it is a 404 that says so, not a server error.
func TestServerShallowObject(t *testing.T) {
	r := fixture(t)
	base := serve(t, r)
	missing := "event:blake3:" + strings.Repeat("cd", 32)
	if err := os.WriteFile(filepath.Join(r.Root(), "shallow"), []byte(missing+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, body := get(t, http.MethodGet, base+"api/event/"+missing, "")
	if code != http.StatusNotFound || !strings.Contains(string(body), "beyond the shallow boundary") {
		t.Fatalf("event on the shallow boundary: %d %s", code, body)
	}
}

// TestServerScoresFresh: an evaluation moves no ref, yet the next page
// load shows its score.
func TestServerScoresFresh(t *testing.T) {
	r := fixture(t)
	base := serve(t, r)
	scores := func() int {
		var info struct {
			Runs []struct {
				Ref    string
				Scores []struct{ Name string }
			}
		}
		_, _, body := get(t, http.MethodGet, base+"api/graph", "")
		if err := json.Unmarshal(body, &info); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range info.Runs {
			if r.Ref == "heads/main" {
				n = len(r.Scores)
			}
		}
		return n
	}
	if n := scores(); n != 0 {
		t.Fatalf("heads/main has %d scores before its evaluation", n)
	}
	s, err := trust.ParseScore("speed=3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trust.Evaluate(t.Context(), r, trust.EvaluateOptions{Target: "heads/main", Scores: []trust.Score{s}}); err != nil {
		t.Fatal(err)
	}
	if n := scores(); n != 1 {
		t.Fatalf("heads/main has %d scores after its evaluation, want 1", n)
	}
}
