package httpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

type searchResult struct {
	Objects   []string `json:"objects"`
	Truncated bool     `json:"truncated"`
}

func (ts *testServer) search(t *testing.T, body string) searchResult {
	t.Helper()
	status, reply, _ := ts.raw(t, "POST", "/v1/tenants/acme/search", "", "", []byte(body))
	if status != 200 {
		t.Fatalf("search %s = %d %s", body, status, reply)
	}
	var r searchResult
	if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Objects == nil {
		t.Fatalf("search reply %s: %v", reply, err)
	}
	return r
}

func (ts *testServer) install(t *testing.T, src *source, root objects.OID) {
	t.Helper()
	if status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, src.frame(t, root)); status != 201 {
		t.Fatalf("install = %d %s", status, body)
	}
}

func strs(ids []objects.OID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

func TestSearchRolesAndInput(t *testing.T) {
	ts := startServer(t, httpserve.Config{Role: httpserve.RoleReader})
	if r := ts.search(t, ""); len(r.Objects) != 0 || r.Truncated {
		t.Errorf("search of an empty tenant = %+v", r)
	}
	if r := ts.search(t, `{"type":null}`); len(r.Objects) != 0 {
		t.Errorf("search with type null = %+v", r)
	}
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/acme/search", "-", "", nil); status != 401 {
		t.Errorf("anonymous search = %d, want 401", status)
	}
	if status, _, _ := ts.raw(t, "POST", "/v1/tenants/other/search", "", "", nil); status != 403 {
		t.Errorf("search of another tenant = %d, want 403", status)
	}
	if status, _, _ := ts.raw(t, "GET", "/v1/tenants/acme/search", "", "", nil); status != 404 {
		t.Errorf("GET search = %d, want 404", status)
	}
	for _, body := range []string{`{"type":"commit"}`, `{"type":"RUN"}`, `{"type":5}`, `{"type":["run"]}`,
		`{"kind":"run"}`, `["run"]`, `"run"`, `{"type":"run"`} {
		if status, reply, _ := ts.raw(t, "POST", "/v1/tenants/acme/search", "", "", []byte(body)); status != 400 || reply != `{"error":"invalid request"}` {
			t.Errorf("search %s = %d %s, want 400", body, status, reply)
		}
	}
}

// TestSearchNewestFirst: newest is the order the server received objects:
// a later push before an earlier one, and within a pack its install order
// (a run after its events, an event after its parent).
func TestSearchNewestFirst(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 3)
	ts.install(t, src, src.run)
	runB, evsB := src.addRun(t, "b", 2)
	ts.install(t, src, runB)
	if got, want := ts.search(t, `{"type":"run"}`).Objects, strs([]objects.OID{runB, src.run}); !slices.Equal(got, want) {
		t.Errorf("runs = %v, want %v", got, want)
	}
	evs := append(slices.Clone(src.events), evsB...)
	slices.Reverse(evs)
	r := ts.search(t, `{"type":"event"}`)
	if !slices.Equal(r.Objects, strs(evs)) || r.Truncated {
		t.Errorf("events = %v (truncated %v), want %v", r.Objects, r.Truncated, strs(evs))
	}
	all := ts.search(t, "{}").Objects
	if len(all) != 12 || all[0] != runB.String() || all[1] != evsB[1].String() {
		t.Errorf("all = %v", all)
	}
	for _, s := range ts.search(t, `{"type":"blob"}`).Objects {
		if !strings.HasPrefix(s, "blob:sha256:") {
			t.Errorf("blob search returned %s", s)
		}
	}
	if r := ts.search(t, `{"type":"attestation"}`); len(r.Objects) != 0 || r.Truncated {
		t.Errorf("attestations = %+v", r)
	}
}

// TestSearchTruncated: at most 1,000 ids, the newest, and truncated says
// more exist. (blake3 tenants here: storage packs keep the thousands of
// objects quick to write.)
func TestSearchTruncated(t *testing.T) {
	ts := startServer(t, httpserve.Config{ObjectFormat: objects.BLAKE3})
	src := newSource(t, objects.BLAKE3, "big", 1200)
	ts.install(t, src, src.run)
	r := ts.search(t, `{"type":"event"}`)
	want := slices.Clone(src.events[200:])
	slices.Reverse(want)
	if !r.Truncated || !slices.Equal(r.Objects, strs(want)) {
		t.Errorf("events: %d ids, truncated %v; want the newest 1000 and truncated", len(r.Objects), r.Truncated)
	}
	if r := ts.search(t, `{}`); len(r.Objects) != httpserve.SearchPage || !r.Truncated || r.Objects[0] != src.run.String() {
		t.Errorf("all: %d ids, truncated %v", len(r.Objects), r.Truncated)
	}
	if r := ts.search(t, `{"type":"run"}`); len(r.Objects) != 1 || r.Truncated {
		t.Errorf("runs = %+v", r)
	}
	// Exactly 1,000 is not truncated.
	ts2 := startServer(t, httpserve.Config{ObjectFormat: objects.BLAKE3})
	src2 := newSource(t, objects.BLAKE3, "k", 1000)
	ts2.install(t, src2, src2.run)
	if r := ts2.search(t, `{"type":"event"}`); len(r.Objects) != 1000 || r.Truncated {
		t.Errorf("1000 events: %d ids, truncated %v", len(r.Objects), r.Truncated)
	}
}

// TestSearchUnjournalled: objects the journal does not name (written into
// the tenant by other means, or its journal moved aside) follow the
// journalled ones in ascending oid order; a damaged journal is an error,
// not silently dropped.
func TestSearchUnjournalled(t *testing.T) {
	ts := startServer(t, httpserve.Config{ObjectFormat: objects.BLAKE3})
	src := newSource(t, objects.BLAKE3, "a", 1100)
	ts.install(t, src, src.run)
	journal := filepath.Join(ts.root, "search", "acme", "event")
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	r := ts.search(t, `{"type":"event"}`)
	sorted := strs(src.events)
	slices.Sort(sorted)
	if !r.Truncated || !slices.Equal(r.Objects, sorted[:1000]) {
		t.Errorf("unjournalled events: %d ids, truncated %v, first %v", len(r.Objects), r.Truncated, r.Objects[:2])
	}
	runB, evsB := src.addRun(t, "b", 1)
	ts.install(t, src, runB)
	r = ts.search(t, `{"type":"event"}`)
	if r.Objects[0] != evsB[0].String() || !r.Truncated || len(r.Objects) != 1000 {
		t.Errorf("after a push, the newest event is not first: %v", r.Objects[:2])
	}
	if err := os.WriteFile(journal, []byte("tine-search-journal 1\nnot an oid\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/search", "", "", []byte(`{"type":"event"}`)); status != 500 {
		t.Errorf("search over a damaged journal = %d %s, want 500", status, body)
	}
}

// TestSearchTakesSlot: a search takes a negotiate slot, so while every
// slot is held a search waits (here until its caller gives up) instead of
// listing the tenant beside them; once they are free it answers.
func TestSearchTakesSlot(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 3)
	ts.install(t, src, src.run)
	release := httpserve.HoldWalkSlots(ts.srv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", ts.http.URL+"/v1/tenants/acme/search", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("a search answered 200 while every negotiate slot was held")
		}
	}
	release()
	if r := ts.search(t, "{}"); len(r.Objects) != 7 {
		t.Errorf("search after the slots were freed = %d ids, want 7", len(r.Objects))
	}
}

// TestSearchListingBounded: the listing of objects the journal does not
// name stops once the page is full and one more is seen (and, for a type,
// after that type's ids), instead of visiting every object of the tenant.
func TestSearchListingBounded(t *testing.T) {
	ts := startServer(t, httpserve.Config{ObjectFormat: objects.BLAKE3})
	src := newSource(t, objects.BLAKE3, "a", 1100) // 1,100 events and blobs, a run
	ts.install(t, src, src.run)
	if err := os.RemoveAll(filepath.Join(ts.root, "search", "acme")); err != nil {
		t.Fatal(err)
	}
	visited := 0
	defer httpserve.SetSearchListHook(func(n int) { visited = n })()
	for _, c := range []struct {
		body string
		max  int
	}{
		{`{}`, httpserve.SearchPage + 1},
		{`{"type":"blob"}`, httpserve.SearchPage + 1},         // blobs list first
		{`{"type":"event"}`, 1100 + httpserve.SearchPage + 1}, // after the blobs
		{`{"type":"annotation"}`, 1},                          // none: the first blob ends it
	} {
		visited = 0
		r := ts.search(t, c.body)
		if visited == 0 {
			t.Fatalf("search %s: the listing did not run", c.body)
		}
		if visited > c.max {
			t.Errorf("search %s visited %d ids, want at most %d", c.body, visited, c.max)
		}
		if c.body != `{"type":"annotation"}` && (len(r.Objects) != httpserve.SearchPage || !r.Truncated) {
			t.Errorf("search %s = %d ids, truncated %v", c.body, len(r.Objects), r.Truncated)
		}
	}
	if r := ts.search(t, `{"type":"run"}`); len(r.Objects) != 1 || r.Truncated || r.Objects[0] != src.run.String() {
		t.Errorf("runs = %+v", r)
	}
}
