package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// MaxShallowBytes bounds the shallow file read (SPEC §2.7: 1 MiB) of a
// sha256 repository; a blake3 one's is refs.MaxShallowBytesBLAKE3 (see
// refs.ShallowBounds).
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

// readShallowHook, when set by a test, runs at each read of the shallow
// file.
var readShallowHook func()

// readShallow parses the shallow file with the reader rules of SPEC §2.7,
// within the bounds of the repository's hash profile, every oid of that
// profile. Errors name the file (and the line, for a bad oid): a damaged
// boundary is refused, never repaired.
func (r *Repo) readShallow() ([]objects.OID, error) {
	if readShallowHook != nil {
		readShallowHook()
	}
	_, maxBytes := refs.ShallowBounds(r.algo)
	b, err := readConfined(r.root, "shallow", int64(maxBytes))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	path := filepath.Join(r.root, "shallow")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	ids, err := refs.ParseShallowFor(b, r.algo)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return ids, nil
}
