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

// prePushPath asks git where the project's hooks live (`git rev-parse
// --git-path hooks` honours core.hooksPath and linked worktrees).
func prePushPath(ctx context.Context, project string) (string, error) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--git-path", "hooks")
	cmd.Dir = abs
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("the pre-push hook needs a git work tree at %s: git rev-parse: %v %s", project, err, strings.Join(strings.Fields(stderr.String()), " "))
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(abs, dir)
	}
	return filepath.Join(dir, "pre-push"), nil
}

// readHook returns the hook's bytes, or nil when there is none.
func readHook(path string) ([]byte, error) {
	b, err := fsutil.ReadFile(path, maxHookBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// InstallPrePush writes the opt-in git pre-push hook that runs the gate's
// push phase (waivers ignored) before every push. A hook tine did not
// write is never replaced: setup refuses and says how to merge by hand.
// A new hook is created without replacing one that appears meanwhile.
func InstallPrePush(ctx context.Context, project, exe string) (*PrePushResult, error) {
	path, err := prePushPath(ctx, project)
	if err != nil {
		return nil, err
	}
	old, err := readHook(path)
	if err != nil {
		return nil, err
	}
	script, err := gate.PlanPrePush(old, exe, hookProjectArg(project))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res := &PrePushResult{Path: path, Action: "written"}
	switch {
	case bytes.Equal(old, script):
		res.Action = "unchanged"
	case old == nil:
		if err := fsutil.MkdirAllSync(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := fsutil.CreateFileAtomic(path, script, 0o755); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
	default:
		if err := fsutil.WriteFileAtomic(path, script, 0o755); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
	}
	return res, nil
}

// UninstallPrePush removes the pre-push hook only when tine wrote it.
func UninstallPrePush(ctx context.Context, project string) (*PrePushResult, error) {
	path, err := prePushPath(ctx, project)
	if err != nil {
		return nil, err
	}
	old, err := readHook(path)
	switch {
	case err != nil:
		return nil, err
	case old == nil:
		return &PrePushResult{Path: path, Action: "absent"}, nil
	case !gate.OwnedPrePush(old):
		return &PrePushResult{Path: path, Action: "foreign"}, nil
	}
	if err := os.Remove(path); err != nil {
		return nil, fmt.Errorf("remove %s: %w", path, err)
	}
	if err := fsutil.SyncDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return &PrePushResult{Path: path, Action: "removed"}, nil
}
