package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
)

// maxBaselineBytes bounds a ratchet baseline file.
const maxBaselineBytes = 1 << 20

var (
	errOutsideRoot = errors.New("path escapes the project root")
	errTooLarge    = errors.New("file is too large")
)

// confined resolves the project-relative path rel under root, following
// symbolic links, and refuses a result outside root (SPEC §10: cwd,
// artifact, metric-file and baseline paths are confined to the project).
// A missing final file is allowed; its parent must resolve inside root.
func confined(root, rel string) (string, error) {
	if msg := checkRelPath(rel); msg != "" {
		return "", fmt.Errorf("%q %s: %w", rel, msg, errOutsideRoot)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	full := filepath.Join(realRoot, filepath.FromSlash(rel))
	resolved, err := filepath.EvalSymlinks(full)
	if errors.Is(err, os.ErrNotExist) {
		parent, perr := filepath.EvalSymlinks(filepath.Dir(full))
		if perr != nil {
			return "", err
		}
		if !inside(realRoot, parent) {
			return "", fmt.Errorf("%q: %w", rel, errOutsideRoot)
		}
		return full, err
	}
	if err != nil {
		return "", err
	}
	if !inside(realRoot, resolved) {
		return "", fmt.Errorf("%q: %w", rel, errOutsideRoot)
	}
	return resolved, nil
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readConfined reads a confined file of at most limit bytes.
func readConfined(root, rel string, limit int64) ([]byte, error) {
	p, err := confined(root, rel)
	if err != nil {
		return nil, err
	}
	b, err := fsutil.ReadFile(p, limit)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return nil, fmt.Errorf("%q: %w", rel, errTooLarge)
	}
	return b, err
}
