//go:build !unix

package index

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
)

// mapHistFile reads a layer whole where mappings are not used.
func mapHistFile(dir, name string) ([]byte, func() error, error) {
	path := filepath.Join(dir, name)
	b, err := fsutil.ReadFileWith(path, fsutil.ReadOptions{Limit: maxHistLayerBytes, NoFollow: true})
	if errors.Is(err, fsutil.ErrTooLarge) || errors.Is(err, fsutil.ErrNotRegular) || errors.Is(err, fsutil.ErrSymlink) {
		return nil, nil, fmt.Errorf("history layer %s: %w: %w", path, err, ErrHistoryCorrupt)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("history layer: %w", err)
	}
	return b, func() error { return nil }, nil
}

// noFollowLock is unavailable here.
const noFollowLock = 0
