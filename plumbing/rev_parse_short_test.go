package plumbing

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestResolveShortHex: a hex string shorter than MinPrefixLen that names
// no ref says a prefix needs more digits; a longer one that matches
// nothing stays a plain unknown revision.
func TestResolveShortHex(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		for _, rev := range []string{"f", "f61", "000"} {
			_, err := r.Resolve(ctx, rev)
			if !errors.Is(err, ErrUnknownRevision) || !strings.Contains(err.Error(), "a hex prefix needs at least 4 digits") {
				t.Errorf("%s: %v", rev, err)
			}
		}
		for _, rev := range []string{"f61a", "nope"} {
			_, err := r.Resolve(ctx, rev)
			if !errors.Is(err, ErrUnknownRevision) || strings.Contains(err.Error(), "digits") {
				t.Errorf("%s: %v", rev, err)
			}
		}
	})
}
