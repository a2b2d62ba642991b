package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
)

// confinedPath joins the slash-separated relative path rel to root after
// checking it cannot leave the repository (SPEC §2.1): no empty, "." or ".."
// component, no absolute path or backslash, and no existing component that
// is a symlink. A missing component is fine (the caller may create it).
func confinedPath(root, rel string) (string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") {
		return "", fmt.Errorf("path %q: %w", rel, ErrNotConfined)
	}
	p := root
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." {
			return "", fmt.Errorf("path %q has a %q component: %w", rel, c, ErrNotConfined)
		}
		p = filepath.Join(p, c)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symlink: %w", p, ErrNotConfined)
		}
	}
	return p, nil
}

// readConfined reads the regular file rel under root through the one
// bounded reader (fsutil.ReadFileWith), refusing symlinks, hard-linked
// files and anything not regular (ErrNotConfined). It reads at most
// limit+1 bytes, so its caller reports an oversized file with its own
// reason (config.json's, shallow's).
func readConfined(root, rel string, limit int64) ([]byte, error) {
	p, err := confinedPath(root, rel)
	if err != nil {
		return nil, err
	}
	b, err := fsutil.ReadFileWith(p, fsutil.ReadOptions{Limit: limit, KeepOver: true, MaxLinks: 1, NoFollow: true})
	if errors.Is(err, fsutil.ErrNotRegular) || errors.Is(err, fsutil.ErrHardLinked) || errors.Is(err, fsutil.ErrSymlink) {
		return nil, fmt.Errorf("%w: %w", err, ErrNotConfined)
	}
	return b, err
}
