package gates_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/porcelain/gates"
)

// gitWorkTree makes a git work tree with one commit, with git reading no
// user or system configuration, and returns its real path.
func gitWorkTree(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// git runs git in dir.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// ownedHook is a pre-push hook tine wrote, with another executable than
// the tests install, so setup would rewrite it.
var ownedHook = string(gate.PrePushScript("old-tine", "/somewhere"))

// TestPrePushSetupAndUninstall: setup writes the hook where git looks for
// it (.git/hooks, core.hooksPath inside or outside the work tree, even one
// reached through a link the user configured, the main repository's hooks
// from a linked worktree), a second setup leaves it, and uninstall
// removes it.
func TestPrePushSetupAndUninstall(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(t *testing.T, proj string) (project, hookDir string){
		"default": func(t *testing.T, proj string) (string, string) {
			return proj, filepath.Join(proj, ".git", "hooks")
		},
		"hooks-path-in-tree": func(t *testing.T, proj string) (string, string) {
			git(t, proj, "config", "core.hooksPath", "tools/hooks")
			return proj, filepath.Join(proj, "tools", "hooks")
		},
		"hooks-path-outside-through-a-link": func(t *testing.T, proj string) (string, string) {
			outside := t.TempDir()
			real := filepath.Join(outside, "real")
			if err := os.Mkdir(real, 0o755); err != nil {
				t.Fatal(err)
			}
			symlinkOrSkip(t, real, filepath.Join(outside, "hooks"))
			git(t, proj, "config", "core.hooksPath", filepath.Join(outside, "hooks"))
			return proj, real
		},
		"linked-worktree": func(t *testing.T, proj string) (string, string) {
			wt := filepath.Join(t.TempDir(), "wt")
			git(t, proj, "worktree", "add", "-q", wt)
			return wt, filepath.Join(proj, ".git", "hooks")
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			project, hookDir := setup(t, gitWorkTree(t))
			res, err := gates.InstallPrePush(ctx, project, "tine")
			if err != nil || res.Action != "written" {
				t.Fatalf("setup: %+v, %v", res, err)
			}
			hook := filepath.Join(hookDir, "pre-push")
			if b, err := os.ReadFile(hook); err != nil || !gate.OwnedPrePush(b) {
				t.Fatalf("hook at %s: %q, %v", hook, b, err)
			}
			if res, err := gates.InstallPrePush(ctx, project, "tine"); err != nil || res.Action != "unchanged" {
				t.Fatalf("second setup: %+v, %v", res, err)
			}
			if res, err := gates.UninstallPrePush(ctx, project); err != nil || res.Action != "removed" {
				t.Fatalf("uninstall: %+v, %v", res, err)
			}
			if _, err := os.Lstat(hook); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("hook left after uninstall: %v", err)
			}
		})
	}
}

// TestPrePushRefusesLinks: a pre-push hook that is a symlink, or a hooks
// directory inside the repository that is one (.git/hooks, or an in-tree
// core.hooksPath), is refused by setup and by uninstall, naming the link:
// the link stays as it was, what it reaches is neither rewritten nor
// removed, and a dangling link's target is not created.
func TestPrePushRefusesLinks(t *testing.T) {
	ctx := context.Background()
	for _, at := range []string{"file", "file-dangling", "hooks-dir", "hooks-path-dir"} {
		t.Run(at, func(t *testing.T) {
			proj, outside := gitWorkTree(t), t.TempDir()
			var link, target string
			switch at {
			case "file", "file-dangling":
				link, target = filepath.Join(proj, ".git", "hooks", "pre-push"), filepath.Join(outside, "pre-push")
				if at == "file" {
					writeFile(t, target, ownedHook)
				}
			case "hooks-dir", "hooks-path-dir":
				link, target = filepath.Join(proj, ".git", "hooks"), outside
				if at == "hooks-path-dir" {
					git(t, proj, "config", "core.hooksPath", ".githooks")
					link = filepath.Join(proj, ".githooks")
				} else if err := os.RemoveAll(link); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(outside, "pre-push"), ownedHook)
			}
			symlinkOrSkip(t, target, link)
			before := gates.SnapshotNoFollow(t, outside)
			for verb, run := range map[string]func() (*gates.PrePushResult, error){
				"setup":     func() (*gates.PrePushResult, error) { return gates.InstallPrePush(ctx, proj, "tine") },
				"uninstall": func() (*gates.PrePushResult, error) { return gates.UninstallPrePush(ctx, proj) },
			} {
				res, err := run()
				if !errors.Is(err, fsutil.ErrSymlink) || !strings.Contains(err.Error(), link+" is a symlink") {
					t.Fatalf("%s: %+v, %v: want a refusal naming %s", verb, res, err, link)
				}
				if to, err := os.Readlink(link); err != nil || to != target {
					t.Fatalf("%s: the link is now %q, %v; want it to point at %s", verb, to, err, target)
				}
				if got := gates.SnapshotNoFollow(t, outside); !maps.Equal(got, before) {
					t.Fatalf("%s changed what the link reaches: %v, was %v", verb, got, before)
				}
			}
		})
	}
}
