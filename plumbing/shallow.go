package plumbing

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// MaxShallowBytes bounds the shallow file read (SPEC §2.7: 1 MiB).
const MaxShallowBytes = 1 << 20

// shallowSet reads the repository's shallow file (absent means empty).
func (r *Repo) shallowSet() (map[objects.OID]bool, error) {
	ids, err := r.readShallow()
	if err != nil {
		return nil, err
	}
	set := make(map[objects.OID]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set, nil
}

// readShallow parses the shallow file with the reader rules of SPEC §2.7.
func (r *Repo) readShallow() ([]objects.OID, error) {
	b, err := readConfined(r.root, "shallow", MaxShallowBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read shallow: %w", err)
	}
	ids, err := refs.ParseShallow(b)
	if err != nil {
		return nil, fmt.Errorf("shallow: %w", err)
	}
	return ids, nil
}
