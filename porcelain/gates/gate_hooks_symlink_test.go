package gates_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/porcelain/gates"
)

// symlinkOrSkip makes link point at target, skipping where symlinks are
// unavailable. Every target is inside a t.TempDir().
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// isLink reports whether path is (still) a symlink.
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// linkedSettings puts a symlink at the codex settings file of proj, or at
// its directory, pointing into outside, and returns the link and the file
// it reaches. With dangling the file does not exist.
func linkedSettings(t *testing.T, proj, outside, at string, dangling bool) (link, target string) {
	t.Helper()
	target = filepath.Join(outside, "hooks.json")
	if !dangling {
		writeFile(t, target, "{\"model\":\"opus\"}")
	}
	if at == "directory" {
		link = filepath.Join(proj, ".codex")
		symlinkOrSkip(t, outside, link)
	} else {
		link = filepath.Join(proj, ".codex", "hooks.json")
		symlinkOrSkip(t, target, link)
	}
	return link, target
}

// checkLinkRefused checks that err refuses the link by name and that the
// link and what it reaches are as they were.
func checkLinkRefused(t *testing.T, err error, link, target string, dangling bool) {
	t.Helper()
	if !errors.Is(err, gates.ErrHookSettings) || !errors.Is(err, fsutil.ErrSymlink) ||
		!strings.Contains(err.Error(), link+" is a symlink") {
		t.Fatalf("err %v: want a refusal naming %s as a symlink", err, link)
	}
	if !isLink(link) {
		t.Errorf("%s is no longer a symlink", link)
	}
	got, rerr := os.ReadFile(target)
	switch {
	case dangling && !errors.Is(rerr, os.ErrNotExist):
		t.Errorf("the dangling link's target was created: %q, %v", got, rerr)
	case !dangling && (rerr != nil || string(got) != "{\"model\":\"opus\"}"):
		t.Errorf("the file the link reaches: %q, %v", got, rerr)
	}
}

// TestHookSetupRefusesLinkedSettings: a settings file reached through a
// symlink, at the file or at its directory, is refused by name, and
// nothing is written: not the link (which stays a link), not what it
// reaches (a dangling link's target is not created), not the other
// adapters' files, not the record or the tombstone.
func TestHookSetupRefusesLinkedSettings(t *testing.T) {
	for _, at := range []string{"file", "directory"} {
		for _, dangling := range []bool{false, true} {
			t.Run(at+map[bool]string{true: "-dangling"}[dangling], func(t *testing.T) {
				proj, outside := t.TempDir(), t.TempDir()
				state := filepath.Join(t.TempDir(), "gate")
				link, target := linkedSettings(t, proj, outside, at, dangling)
				before := gates.SnapshotNoFollow(t, proj)
				_, err := gates.SetupHooks(gates.HookSetupOptions{Project: proj, StateDir: state})
				checkLinkRefused(t, err, link, target, dangling)
				if got := gates.SnapshotNoFollow(t, proj); !maps.Equal(got, before) {
					t.Errorf("project after a refused setup: %v, was %v", got, before)
				}
				for _, f := range []string{gates.HooksCreatedFile, gates.HooksDisabledFile} {
					if _, err := os.Lstat(filepath.Join(state, f)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s written by a refused setup: %v", f, err)
					}
				}
			})
		}
	}
}

// TestHookUninstallRefusesLinkedSettings: a file setup created that was
// then replaced by a link, or whose directory was, is refused by name
// before anything is changed: the link stays a link, what it reaches
// keeps its bytes and is never deleted, and the record keeps the entry.
func TestHookUninstallRefusesLinkedSettings(t *testing.T) {
	for _, at := range []string{"file", "directory"} {
		t.Run(at, func(t *testing.T) {
			proj, outside := t.TempDir(), t.TempDir()
			opt := gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterClaude, gates.HookAdapterCodex}, StateDir: filepath.Join(t.TempDir(), "gate")}
			if _, err := gates.SetupHooks(opt); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(proj, ".codex")); err != nil {
				t.Fatal(err)
			}
			link, target := linkedSettings(t, proj, outside, at, false)
			record, _ := os.ReadFile(filepath.Join(opt.StateDir, gates.HooksCreatedFile))
			claude, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.local.json"))
			_, err := gates.UninstallHooks(opt)
			checkLinkRefused(t, err, link, target, false)
			if got, _ := os.ReadFile(filepath.Join(opt.StateDir, gates.HooksCreatedFile)); string(got) != string(record) {
				t.Errorf("record rewritten by a refused uninstall: %s", got)
			}
			if got, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.local.json")); string(got) != string(claude) {
				t.Errorf("claude's settings changed by a refused uninstall: %s", got)
			}
			if gates.HooksDisabled(opt.StateDir, gates.HookAdapterClaude) {
				t.Error("a refused uninstall tombstoned claude")
			}
		})
	}
}

// TestHookStateRefusesLinks: a record, tombstone, lock or state directory
// that is a symlink is refused by name, by setup and by uninstall; what it
// reaches is neither read as tine's nor written (a dangling link's target
// is not created), the link stays a link, and no settings file is touched. Hooks treat a linked tombstone as a corrupt
// one: every adapter is disabled.
func TestHookStateRefusesLinks(t *testing.T) {
	const foreign = `{"schema_version":1,"adapters":[]}`
	for what, name := range map[string]string{"record": gates.HooksCreatedFile, "tombstone": gates.HooksDisabledFile,
		"lock": gates.HooksLockFile, "state-dir": ""} {
		t.Run(what, func(t *testing.T) {
			proj, outside := t.TempDir(), t.TempDir()
			state := filepath.Join(t.TempDir(), "gate")
			link, target := state, outside
			want := map[string]string{}
			if name != "" {
				link, target = filepath.Join(state, name), filepath.Join(outside, "f.json")
				if name != gates.HooksLockFile { // the lock's link dangles: it must not be created
					writeFile(t, target, foreign)
					want["f.json"] = foreign
				}
			}
			symlinkOrSkip(t, target, link)
			opt := gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterCodex}, StateDir: state}
			for verb, run := range map[string]func(gates.HookSetupOptions) (*gates.HookSetupResult, error){
				"setup": gates.SetupHooks, "uninstall": gates.UninstallHooks,
			} {
				_, err := run(opt)
				if !errors.Is(err, fsutil.ErrSymlink) || !strings.Contains(err.Error(), link+" is a symlink") {
					t.Fatalf("%s: err %v, want a refusal naming %s", verb, err, link)
				}
				if !isLink(link) {
					t.Fatalf("%s: %s is no longer a symlink", verb, link)
				}
				if got := gates.SnapshotNoFollow(t, proj); len(got) != 0 {
					t.Fatalf("%s touched the project: %v", verb, got)
				}
				if got := gates.SnapshotNoFollow(t, outside); !maps.Equal(got, want) {
					t.Fatalf("%s wrote through the link: %v", verb, got)
				}
			}
			if name == gates.HooksDisabledFile && !gates.HooksDisabled(state, gates.HookAdapterCodex) {
				t.Error("a linked tombstone must disable hooks, as a corrupt one does")
			}
		})
	}
}
