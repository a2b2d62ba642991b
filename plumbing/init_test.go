package plumbing

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestInitLayout(t *testing.T) {
	for _, a := range algos {
		t.Run(string(a), func(t *testing.T) {
			dir := t.TempDir()
			r, res, err := Init(dir, a)
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(dir, ".tine")
			if res.Path != root || res.ObjectFormat != a || r.Root() != root || r.Algo() != a {
				t.Fatalf("result %+v, root %s, algo %s", res, r.Root(), r.Algo())
			}
			b, err := os.ReadFile(filepath.Join(root, "config.json"))
			if err != nil || string(b) != string(ConfigBytes(a)) {
				t.Fatalf("config.json = %q, %v", b, err)
			}
			for _, d := range standardDirs {
				if st, err := os.Lstat(filepath.Join(root, d)); err != nil || !st.IsDir() {
					t.Errorf("%s: %v", d, err)
				}
			}
			if _, _, err := Init(dir, a); !errors.Is(err, ErrRepositoryExists) {
				t.Fatalf("re-init: %v", err)
			}
		})
	}
	if _, _, err := Init(t.TempDir(), "sha1"); err == nil {
		t.Fatal("Init accepted sha1")
	}
}

func TestOpenForms(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Init(dir, objects.SHA256); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, ".tine")} {
		r, err := Open(p)
		if err != nil || r.Algo() != objects.SHA256 || r.Root() != filepath.Join(dir, ".tine") {
			t.Fatalf("Open(%s) = %v, %v", p, r, err)
		}
	}
	empty := t.TempDir()
	// An explicit path is the only place looked at: no "(or any parent)".
	if _, err := Open(empty); !errors.Is(err, ErrNotRepository) || err.Error() != empty+": not a tine repository: run tine init" {
		t.Fatalf("Open(empty) = %v", err)
	}
	// Open recreates a missing standard directory, as OpenTine does.
	if err := os.RemoveAll(filepath.Join(dir, ".tine", "refs", "tags")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".tine", "refs", "tags")); err != nil {
		t.Fatalf("refs/tags not recreated: %v", err)
	}
}

func TestOpenRefusesSymlinks(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Init(dir, objects.BLAKE3); err != nil {
		t.Fatal(err)
	}
	heads := filepath.Join(dir, ".tine", "refs", "heads")
	elsewhere := t.TempDir()
	if err := os.Remove(heads); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, heads); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrNotConfined) {
		t.Fatalf("Open with symlinked refs/heads = %v", err)
	}
	// A symlinked config.json is refused too.
	dir2 := t.TempDir()
	if _, _, err := Init(dir2, objects.BLAKE3); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir2, ".tine", "config.json")
	real := filepath.Join(elsewhere, "config.json")
	if err := os.Rename(cfg, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir2); !errors.Is(err, ErrNotConfined) {
		t.Fatalf("Open with symlinked config.json = %v", err)
	}
}

func TestOpenRefusesBadConfig(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Init(dir, objects.SHA256); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, ".tine", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"format":2,"object_hash":"sha256","repository":"opentine","version":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !objects.HasReason(err, objects.ReasonConfigIncompatible) {
		t.Fatalf("Open with format 2 = %v", err)
	}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Init(dir, objects.BLAKE3); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, "")
	r, err := Discover(sub)
	if err != nil || r.Root() != filepath.Join(dir, ".tine") {
		t.Fatalf("Discover = %v, %v", r, err)
	}
	if _, err := Discover(t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Discover outside = %v", err)
	}
	// The current directory is named by its absolute path, not ".".
	outside := t.TempDir()
	t.Chdir(outside)
	if _, err := Discover(""); !errors.Is(err, ErrNotRepository) || err.Error() != outside+": not a tine repository (or any parent): run tine init" {
		t.Fatalf("Discover in the current directory = %v", err)
	}
	t.Setenv(EnvDir, filepath.Join(dir, ".tine"))
	if r, err := Discover(t.TempDir()); err != nil || r.Root() != filepath.Join(dir, ".tine") {
		t.Fatalf("Discover with TINE_DIR = %v, %v", r, err)
	}
}

func TestConfinedPath(t *testing.T) {
	root := t.TempDir()
	for _, bad := range []string{"", "/etc", "a/../b", "./a", "a//b", "..", `a\b`} {
		if _, err := confinedPath(root, bad); !errors.Is(err, ErrNotConfined) {
			t.Errorf("confinedPath(%q) = %v", bad, err)
		}
	}
	if p, err := confinedPath(root, "refs/heads/main"); err != nil || p != filepath.Join(root, "refs", "heads", "main") {
		t.Fatalf("confinedPath = %q, %v", p, err)
	}
}
