package s3remote

import (
	"context"
	"fmt"
	"sort"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// VerifyResult is what Verify checked.
type VerifyResult struct {
	// Packs counts the packs read and verified whole.
	Packs int `json:"packs"`
	// Objects counts the objects they hold, each re-hashed.
	Objects int `json:"objects"`
	// Refs counts the refs whose closure was walked.
	Refs int `json:"refs"`
}

// Verify is fsck for an S3 remote: it downloads every pack with an index
// and verifies it whole (trailer, block checksums, every object's oid),
// then walks the link closure of every ref through the packs, which fails
// on a ref to a missing object or a link to one no pack holds. Orphan packs (no index: an
// upload that was cut) are not read; they are invisible and harmless.
func (t *Transport) Verify(ctx context.Context) (*VerifyResult, error) {
	rs, err := t.ListRefs(ctx)
	if err != nil {
		return nil, err
	}
	pi, err := t.loadPacks(ctx)
	if err != nil {
		return nil, err
	}
	src, err := newPackSource(t, pi, func(context.Context, objects.OID) (bool, error) { return false, nil })
	if err != nil {
		return nil, err
	}
	defer src.close()
	names := make([]string, 0, len(pi.idx))
	for name := range pi.idx {
		names = append(names, name)
	}
	sort.Strings(names)
	res := &VerifyResult{Packs: len(names), Refs: len(rs)}
	for _, name := range names {
		if err := src.ensure(ctx, name); err != nil {
			return nil, err
		}
		n, err := src.store.Verify(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("%s: verify %s: %w", t.url, name, err)
		}
		res.Objects += n
	}
	wants := make([]objects.OID, len(rs))
	for i, r := range rs {
		wants[i] = r.ID
	}
	if _, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: wants, Depth: plumbing.NoDepth}); err != nil {
		return nil, fmt.Errorf("%s: verify refs: %w", t.url, err)
	}
	return res, nil
}
