package gates

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
)

// maxHookBytes bounds the existing pre-push hook tine reads.
const maxHookBytes = 1 << 20

// PrePushResult reports what setup or uninstall did to the git pre-push
// hook: Action is "written", "unchanged", "removed", "absent" or
// "foreign" (a hook tine did not write, left as it is).
type PrePushResult struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

// prePushHook is where the pre-push hook lives: the file rel (a slash
// path ending in "pre-push") under base. base is trusted and may be
// reached through links; tine follows no symlink along rel.
type prePushHook struct {
	base, rel string
}

// path is the hook's path, for messages.
func (h prePushHook) path() string { return filepath.Join(h.base, filepath.FromSlash(h.rel)) }

// prePushLocation asks git where the project's hooks live (`git rev-parse
// --git-path hooks` honours core.hooksPath and linked worktrees) and
// chooses what is trusted. Hooks in the git directory (.git/hooks, or the
// main repository's in a linked worktree) are below the git directory,
// which is trusted as git trusts it; hooks elsewhere in the work tree
// (core.hooksPath = .githooks) are below the work tree; hooks outside both
// (core.hooksPath = ~/.githooks) are the user's own configured directory,
// trusted as it is. Below the trusted directory, the hooks directory and
// the hook file must not be symlinks: a link there, which a clone or an
// unpacked archive can carry, could point anywhere.
func prePushLocation(ctx context.Context, project string) (prePushHook, error) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return prePushHook{}, err
	}
	// The project path is the user's, links included; resolving it makes
	// git's relative answers and its real-path work tree comparable.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	out, err := revParse(ctx, abs, "--git-common-dir", "--git-path", "hooks")
	if err == nil && len(out) != 2 {
		err = fmt.Errorf("unexpected output %q", out)
	}
	if err != nil {
		return prePushHook{}, fmt.Errorf("the pre-push hook needs a git work tree at %s: git rev-parse: %w", project, err)
	}
	hooks, trusted := absFrom(abs, out[1]), []string{absFrom(abs, out[0])}
	if top, err := revParse(ctx, abs, "--show-toplevel"); err == nil && len(top) == 1 { // none outside a work tree
		trusted = append(trusted, absFrom(abs, top[0]))
	}
	base := hooks
	for _, b := range trusted {
		if within(b, hooks) {
			base = b
			break
		}
	}
	rel, err := filepath.Rel(base, hooks)
	if err != nil {
		return prePushHook{}, err
	}
	if rel == "." {
		return prePushHook{base, "pre-push"}, nil
	}
	return prePushHook{base, filepath.ToSlash(rel) + "/pre-push"}, nil
}

// revParse runs git rev-parse in dir and returns its output lines.
func revParse(ctx context.Context, dir string, args ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"rev-parse"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v %s", err, strings.Join(strings.Fields(stderr.String()), " "))
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n"), nil
}

// absFrom is p, made absolute from dir when git answered relative to it.
func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// within reports whether p is dir or lies below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// readHook returns the hook's bytes, or nil when there is none. A hook, or
// hooks directory, that is a symlink is refused.
func readHook(h prePushHook) ([]byte, error) {
	f, err := fsutil.OpenNoSymlinks(h.base, h.rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, prePushLinkError(h, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.path(), err)
	}
	defer f.Close()
	b, err := fsutil.ReadRegular(f, maxHookBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", h.path(), err)
	}
	return b, nil
}

// prePushLinkError explains the refusal of a pre-push hook reached
// through a symlink, naming the link when it can still be found.
func prePushLinkError(h prePushHook, err error) error {
	if p := linkedComponent(h.base, h.rel); p != "" {
		err = fmt.Errorf("%s %w", p, fsutil.ErrSymlink)
	} else {
		err = fmt.Errorf("%s: %w", h.path(), err)
	}
	return fmt.Errorf("%w: tine never reads, writes, replaces or removes the git pre-push hook through a symlink, which could point outside the repository; edit the hook the link reaches by hand (add `tine gate run --phase push` to it), or replace the link with a regular file or directory and run the command again", err)
}

// InstallPrePush writes the opt-in git pre-push hook that runs the gate's
// push phase (waivers ignored) before every push. A hook tine did not
// write is never replaced: setup refuses and says how to merge by hand.
// A new hook is created without replacing one that appears meanwhile. A
// hook, or hooks directory inside the repository, that is a symlink is
// refused and nothing is written (prePushLocation).
func InstallPrePush(ctx context.Context, project, exe string) (*PrePushResult, error) {
	h, err := prePushLocation(ctx, project)
	if err != nil {
		return nil, err
	}
	old, err := readHook(h)
	if err != nil {
		return nil, err
	}
	script, err := gate.PlanPrePush(old, exe, hookProjectArg(project))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.path(), err)
	}
	res := &PrePushResult{Path: h.path(), Action: "written"}
	switch {
	case bytes.Equal(old, script):
		res.Action = "unchanged"
		return res, nil
	case old == nil:
		// The trusted directory is made when missing (a configured
		// core.hooksPath), and used as it is when it exists, link or not.
		if _, err = os.Stat(h.base); errors.Is(err, fs.ErrNotExist) {
			err = fsutil.MkdirAllSync(h.base, 0o755)
		}
		if err == nil {
			err = fsutil.CreateFileAtomicNoSymlinks(h.base, h.rel, script, 0o755)
		}
	default:
		err = fsutil.WriteFileAtomicNoSymlinks(h.base, h.rel, script, 0o755)
	}
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, prePushLinkError(h, err)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", h.path(), err)
	}
	return res, nil
}

// UninstallPrePush removes the pre-push hook only when tine wrote it, and
// never through a symlink (see InstallPrePush).
func UninstallPrePush(ctx context.Context, project string) (*PrePushResult, error) {
	h, err := prePushLocation(ctx, project)
	if err != nil {
		return nil, err
	}
	old, err := readHook(h)
	switch {
	case err != nil:
		return nil, err
	case old == nil:
		return &PrePushResult{Path: h.path(), Action: "absent"}, nil
	case !gate.OwnedPrePush(old):
		return &PrePushResult{Path: h.path(), Action: "foreign"}, nil
	}
	err = fsutil.RemoveNoSymlinks(h.base, h.rel)
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, prePushLinkError(h, err)
	}
	if err != nil {
		return nil, fmt.Errorf("remove %s: %w", h.path(), err)
	}
	return &PrePushResult{Path: h.path(), Action: "removed"}, nil
}
