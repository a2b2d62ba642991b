package plumbing

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestCurrentRunFile: the current run round-trips; config.json is not
// touched; damaged, oversized, foreign-hash and symlinked files are
// refused; NoteRefMove advances the mark only for a move from it.
func TestCurrentRunFile(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		cfg, err := os.ReadFile(filepath.Join(r.Root(), "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		if c, err := r.ReadCurrentRun(); c != nil || err != nil {
			t.Fatalf("fresh repository: %+v %v", c, err)
		}
		a := objects.NewBlob(r.Algo(), []byte("a")).ID
		b := objects.NewBlob(r.Algo(), []byte("b")).ID
		c := objects.NewBlob(r.Algo(), []byte("c")).ID
		if err := r.WriteCurrentRun(CurrentRun{Ref: "heads/main", Seen: a.String()}); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteCurrentRun(CurrentRun{Ref: "main"}); !errors.Is(err, ErrBadInput) {
			t.Fatalf("short name written: %v", err)
		}
		// A move from another value leaves the mark; a move from it, or of
		// another ref, does what it says.
		mustNote := func(ref string, old, next objects.OID, want string) {
			t.Helper()
			if err := r.NoteRefMove(ref, old, next); err != nil {
				t.Fatal(err)
			}
			got, err := r.ReadCurrentRun()
			if err != nil || got.Seen != want {
				t.Fatalf("after %s %s->%s: %+v %v, want seen %s", ref, old, next, got, err, want)
			}
		}
		mustNote("heads/main", b, c, a.String())
		mustNote("heads/other", a, c, a.String())
		mustNote("heads/main", a, b, b.String())
		if after, _ := os.ReadFile(filepath.Join(r.Root(), "config.json")); string(after) != string(cfg) {
			t.Fatalf("config.json changed: %q -> %q", cfg, after)
		}

		p := filepath.Join(r.Root(), CurrentRunFile)
		other := objects.SHA256
		if r.Algo() == objects.SHA256 {
			other = objects.BLAKE3
		}
		for name, content := range map[string]string{
			"not json":     "heads/main\n",
			"unknown key":  `{"ref":"heads/main","seen":"","x":1}`,
			"trailing":     `{"ref":"heads/main","seen":""} {"ref":"heads/dev"}`,
			"key case":     `{"REF":"heads/main","seen":""}`,
			"duplicate":    `{"ref":"heads/main","ref":"heads/dev","seen":""}`,
			"not a string": `{"ref":"heads/main","seen":null}`,
			"upper case":   `{"ref":"heads/Main","seen":""}`,
			"no namespace": `{"ref":"main","seen":""}`,
			"foreign hash": `{"ref":"heads/main","seen":"` + objects.NewBlob(other, []byte("a")).ID.String() + `"}`,
			"oversized":    `{"ref":"heads/main","seen":"` + strings.Repeat("a", 5000) + `"}`,
		} {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := r.ReadCurrentRun(); err == nil {
				t.Errorf("%s: read %+v", name, got)
			}
		}
		target := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(target, []byte(`{"ref":"heads/main","seen":""}`), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		if got, err := r.ReadCurrentRun(); err == nil {
			t.Fatalf("symlinked current-run read: %+v", got)
		}
		if err := r.ClearCurrentRun(); err != nil {
			t.Fatal(err)
		}
		if got, err := r.ReadCurrentRun(); got != nil || err != nil {
			t.Fatalf("after clear: %+v %v", got, err)
		}
	})
}
