package objects

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// PackClosure computes what a pack of roots must carry: every object
// reachable from roots by links (SPEC §1.5 link fields only), read through
// g, and the boundary of linked oids that are not available locally. It is
// what `tine pack --output FILE REF|OID...` packs; WritePack accepts its
// result as is, since the boundary is exactly the external link set.
//
// A linked oid that g does not hold (ErrNotFound) is a boundary entry when
// isShallow reports it as one of the repository's shallow oids (SPEC §2.7);
// otherwise the repository is missing an object and the walk fails with
// link.missing-object. Roots must be present. isShallow may be nil (no
// shallow oids).
//
// The walk is bounded like the reference's traversal: more than
// MaxPackObjects reachable objects, or more than MaxPackObjects boundary
// oids, or a manifest past MaxPackBodyBytes, fails with the pack.* reason
// a writer would report, before any further object is read. The objects
// and the boundary are returned sorted by oid.
func PackClosure(ctx context.Context, g Getter, roots []OID, isShallow func(OID) bool) ([]*Object, []OID, error) {
	if isShallow == nil {
		isShallow = func(OID) bool { return false }
	}
	seen := make(map[OID]bool, len(roots))
	var (
		objs     []*Object
		boundary []OID
		size     = int64(len(`{"objects":[],"shallow":[],"version":1}`))
	)
	queue := make([]OID, 0, len(roots))
	for _, id := range roots {
		if !seen[id] {
			seen[id] = true
			queue = append(queue, id)
		}
	}
	nRoots := len(queue)
	for n := 0; n < len(queue); n++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		id := queue[n]
		o, err := g.Get(ctx, id)
		if errors.Is(err, ErrNotFound) && n >= nRoots && isShallow(id) {
			boundary = append(boundary, id)
			if len(boundary) > MaxPackObjects {
				return nil, nil, Errorf(ReasonPackTooManyObjects, "pack boundary exceeds %d oids", MaxPackObjects)
			}
			size += 3 + int64(len(id.String()))
			continue
		}
		if errors.Is(err, ErrNotFound) && n >= nRoots {
			return nil, nil, fmt.Errorf("%w: %w", Errorf(ReasonLinkMissingObject, "pack: linked object %s is missing", id), err)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("pack: %w", err)
		}
		objs = append(objs, o)
		if len(objs) > MaxPackObjects {
			return nil, nil, Errorf(ReasonPackTooManyObjects, "pack would hold more than %d objects", MaxPackObjects)
		}
		size += packManifestSize([]*Object{o}, nil) - int64(len(`{"objects":[],"shallow":[],"version":1}`)) + 1
		if size > MaxPackBodyBytes {
			return nil, nil, Errorf(ReasonPackOversized, "pack manifest would exceed %d bytes", MaxPackBodyBytes)
		}
		links, err := Links(o)
		if err != nil {
			return nil, nil, fmt.Errorf("pack: %w", err)
		}
		for _, l := range links {
			if !seen[l] {
				seen[l] = true
				queue = append(queue, l)
			}
		}
		// Every queued oid ends as a packed object or a boundary entry, so
		// a queue past both bounds together can only fail later: fail now,
		// before reading anything more.
		if len(queue) > 2*MaxPackObjects {
			return nil, nil, Errorf(ReasonPackTooManyObjects, "pack would reach more than %d objects and boundary oids", 2*MaxPackObjects)
		}
	}
	slices.SortFunc(objs, func(x, y *Object) int { return x.ID.Compare(y.ID) })
	slices.SortFunc(boundary, OID.Compare)
	return objs, boundary, nil
}
