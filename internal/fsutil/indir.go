package fsutil

import (
	"fmt"
	"os"
	"path/filepath"
)

// ReadFileInDir reads the regular file rel under dir, at most limit bytes.
// Symlinks are followed, but the file reached must lie inside dir once
// every link is resolved (os.Root refuses an escape, without a race between
// resolving and opening). The open is non-blocking so a FIFO cannot hang
// the caller; ReadRegular then refuses anything that is not a regular file.
func ReadFileInDir(dir, rel string, limit int64) ([]byte, error) {
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("path %q: %w", rel, ErrBadPath)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRegular(f, limit)
}

// ReadFile reads the regular file at path, at most limit bytes
// (ReadFileWith with only a Limit). Errors name path.
func ReadFile(path string, limit int64) ([]byte, error) {
	return ReadFileWith(path, ReadOptions{Limit: limit})
}
