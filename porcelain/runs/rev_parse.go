package runs

import (
	"context"
	"errors"

	"github.com/tinehq/tine/plumbing"
)

// RevParse is plumbing.RevParse where REV~N naming a run no stored object
// holds is not an error: the run is derived (ResolveRun) and its oid, the
// one it would have if written, is reported with Stored false.
func RevParse(ctx context.Context, r *plumbing.Repo, rev string) (*plumbing.RevParseResult, error) {
	res, err := plumbing.RevParse(ctx, r, plumbing.RevParseOptions{Revision: rev})
	if !errors.Is(err, plumbing.ErrNotStored) {
		return res, err
	}
	run, ref, err := ResolveRun(ctx, r, rev)
	if err != nil {
		return nil, err
	}
	return &plumbing.RevParseResult{Revision: rev, OID: run.ID.String(), Type: run.ID.Type, Ref: ref, Stored: run.Stored}, nil
}
