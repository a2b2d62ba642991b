package remotes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

func newRepo(t *testing.T) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), objects.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestConfigRoundTripAndRefusals(t *testing.T) {
	r := newRepo(t)
	before, err := os.ReadFile(filepath.Join(r.Root(), "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	rm, err := Add(r, Remote{Name: "origin", URL: other})
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(rm.URL) {
		t.Fatalf("a path remote is stored as %q, not absolute", rm.URL)
	}
	if _, err := Add(r, Remote{Name: "hub", URL: "https://runs.example/v1/tenants/acme", TokenEnv: "TINE_TOKEN"}); err != nil {
		t.Fatal(err)
	}
	list, err := List(r)
	if err != nil || len(list) != 2 || list[0].Name != "hub" || list[1].Name != "origin" {
		t.Fatalf("list: %+v, %v", list, err)
	}
	after, _ := os.ReadFile(filepath.Join(r.Root(), "config.json"))
	if string(after) != string(before) {
		t.Fatal("config.json changed")
	}

	for _, bad := range []Remote{
		{Name: "origin", URL: other},                                      // exists
		{Name: "Upper", URL: other},                                       // not case-folded
		{Name: "a/b", URL: other},                                         // not one segment
		{Name: "web", URL: "https://me:secret@runs.example/v1/tenants/t"}, // a token on disk
		{Name: "env", URL: other, TokenEnv: "NOT-A-VAR"},
		{Name: "s3", URL: "s3://bucket/p", Endpoint: "ftp://x"},
	} {
		if _, err := Add(r, bad); err == nil {
			t.Errorf("Add(%+v) was accepted", bad)
		}
	}
	b, _ := os.ReadFile(filepath.Join(r.Root(), ConfigFile))
	if strings.Contains(string(b), "secret") {
		t.Fatal("a refused URL reached remotes.json")
	}

	if _, _, err := Remove(r, "hub"); err != nil {
		t.Fatal(err)
	}
	if _, err := Get(r, "hub"); !errors.Is(err, ErrNoRemote) {
		t.Fatalf("removed remote: %v", err)
	}
}

func TestConfigFileIsChecked(t *testing.T) {
	r := newRepo(t)
	for _, text := range []string{
		`{"version":2,"remotes":{}}`,
		`{"version":1,"remotes":{"a":{"name":"b","url":"/x"}}}`,
		`{"version":1,"remotes":{},"extra":1}`,
		`{"version":1,"remotes":{"a":{"name":"a","url":"https://u:p@h/v1/tenants/t"}}}`,
		`not json`,
	} {
		if err := os.WriteFile(filepath.Join(r.Root(), ConfigFile), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := List(r); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%s: %v, want ErrBadConfig", text, err)
		}
	}
}

func TestTrackingAndLocalRefNames(t *testing.T) {
	for in, want := range map[string]string{
		"heads/main":      "remotes/origin/main",
		"refs/heads/a/b":  "remotes/origin/a/b",
		"tags/v1":         "remotes/origin/tags/v1",
		"experiments/x":   "remotes/origin/experiments/x",
		"promotions/prod": "remotes/origin/promotions/prod",
	} {
		if got := TrackingRef("origin", in); got != want {
			t.Errorf("TrackingRef(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"main": "heads/main", "experiments/x": "experiments/x", "refs/tags/v1": "tags/v1"} {
		if got, err := LocalRef(in); err != nil || got != want {
			t.Errorf("LocalRef(%s) = %s, %v", in, got, err)
		}
	}
	if _, err := LocalRef("remotes/origin/main"); err == nil {
		t.Error("a tracking ref was accepted as a ref to push or pull")
	}
}
