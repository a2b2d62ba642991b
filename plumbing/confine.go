package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
