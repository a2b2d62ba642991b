package loose

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/tinehq/tine/objects"
)

// MayHold reports for each of ids whether the store may hold it: true
// where Has says yes or fails (a damaged file, an unsafe directory: Put
// checks and repairs or refuses it), false where the object is absent. It
// looks at each fan-out directory the ids fall in once, first: an id
// whose directory does not exist is absent without a look at its own
// file. A pack-writing bulk write asks this of every object of a batch,
// and in a repository with few loose files most of a batch's 8,192
// lstats were of files in directories that do not exist. Only the
// context's error is returned.
func (s *Store) MayHold(ctx context.Context, ids []objects.OID) ([]bool, error) {
	type fanKey struct {
		t   objects.Type
		fan byte
	}
	out := make([]bool, len(ids))
	absent := map[fanKey]bool{}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if id.Algo != s.algo || !id.Type.Valid() {
			continue // Has: not found
		}
		k := fanKey{id.Type, id.Digest[0]}
		gone, seen := absent[k]
		if !seen {
			_, fanDir, _ := s.paths(id)
			_, err := os.Lstat(fanDir)
			gone = errors.Is(err, fs.ErrNotExist)
			absent[k] = gone
		}
		if gone {
			continue
		}
		ok, err := s.Has(ctx, id)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		out[i] = ok || err != nil
	}
	return out, nil
}
