package objects

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// InstallPack verifies a TINEPACK3 frame and stores its objects in s (SPEC
// §2.8, op pack.install). shallow reports the repository's existing shallow
// oids (SPEC §2.7); it may be nil. Beyond everything InspectPack checks,
// with the store's hash profile, it requires:
//
//   - every link of every packed object to resolve: to a packed object, a
//     declared boundary oid, an existing shallow oid or an object s holds
//     (pack.unresolved-link);
//   - the declared boundary to be exactly the set of the packed objects'
//     external links (pack.shallow-not-link-closure);
//   - every object to pass Validate against the pack, the store and both
//     boundaries (link.*, metrics.*, graph.*, chain.* reasons).
//
// Nothing is written unless all of that holds. Objects are then written
// through s (one PutAll batch) in dependency order, link targets first, so
// an interrupted install leaves a link-closed subset.
//
// The returned frame lists the objects in the order written. Its Boundary
// holds the declared boundary oids s does not hold; InstallPack does not
// write the repository's shallow file, so the caller must add them there.
func InstallPack(ctx context.Context, frame []byte, s Store, shallow func(OID) bool) (*PackFrame, error) {
	return InstallPackLimits(ctx, frame, s, shallow, DefaultPackLimits)
}

// InstallPackLimits is InstallPack reading the frame with the manifest
// counts of lim (see InspectPackLimits).
func InstallPackLimits(ctx context.Context, frame []byte, s Store, shallow func(OID) bool, lim PackLimits) (*PackFrame, error) {
	pf, err := InspectPackLimits(frame, s.Algo(), lim)
	if err != nil {
		return nil, err
	}
	return InstallPackFrame(ctx, pf, s, shallow)
}

// InstallPackFrame is InstallPack for a frame already decoded and checked
// by another reader (tine's binary frame between tine peers): pf's objects
// decoded with s's hash profile, their ids derived from their bytes, no id
// repeated in or across its lists. It checks and writes exactly as
// InstallPack does after InspectPack and returns pf updated the same way.
func InstallPackFrame(ctx context.Context, pf *PackFrame, s Store, shallow func(OID) bool) (*PackFrame, error) {
	if shallow == nil {
		shallow = func(OID) bool { return false }
	}
	for _, o := range pf.Objects {
		if o.ID.Algo != s.Algo() {
			return nil, fmt.Errorf("pack %s: %w: %s in a %s store", pf.ID, ErrPackAlgoMixed, o.ID, s.Algo())
		}
	}
	in := &packInstall{ctx: ctx, store: s, existing: shallow,
		packed: make(map[OID]*Object, len(pf.Objects)), declared: make(map[OID]bool, len(pf.Shallow))}
	for _, o := range pf.Objects {
		in.packed[o.ID] = o
	}
	for _, id := range pf.Shallow {
		in.declared[id] = true
	}
	// Work in oid order so the same frame always reports the same failure.
	objs := slices.Clone(pf.Objects)
	slices.SortFunc(objs, func(x, y *Object) int { return x.ID.Compare(y.ID) })
	links := make(map[OID][]OID, len(objs))
	var ext []OID
	for _, o := range objs {
		ls, err := Links(o)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", pf.ID, err)
		}
		links[o.ID] = ls
		for _, l := range ls {
			if in.packed[l] != nil {
				continue
			}
			ext = append(ext, l)
			ok, err := in.resolvable(l)
			if err != nil {
				return nil, fmt.Errorf("pack %s: link %s: %w", pf.ID, l, err)
			}
			if !ok {
				return nil, Errorf(ReasonPackUnresolvedLink,
					"pack %s: %s links to %s, which is neither packed, present nor shallow", pf.ID, o.ID, l)
			}
		}
	}
	if err := compareBoundary(sortedOIDs(ext), sortedOIDs(pf.Shallow)); err != nil {
		return nil, fmt.Errorf("pack %s: %w", pf.ID, err)
	}
	for _, o := range objs {
		if err := ValidateLinked(o, links[o.ID], in); err != nil {
			return nil, fmt.Errorf("pack %s: %w", pf.ID, err)
		}
	}
	order, err := packDependencyOrder(objs, links)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", pf.ID, err)
	}
	if err := PutAll(ctx, s, order); err != nil {
		return nil, fmt.Errorf("install pack %s: %w", pf.ID, err)
	}
	pf.Objects = order
	for _, id := range sortedOIDs(pf.Shallow) {
		has, err := s.Has(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("install pack %s: boundary %s: %w", pf.ID, id, err)
		}
		if !has {
			pf.Boundary = append(pf.Boundary, id)
		}
	}
	return pf, nil
}

// packInstall is the Resolver an install validates against: the packed
// objects first, then the store; both the declared and the existing shallow
// oids count as boundary.
type packInstall struct {
	ctx      context.Context
	store    Store
	existing func(OID) bool
	packed   map[OID]*Object
	declared map[OID]bool
}

var _ interface {
	Resolver
	PresenceChecker
} = (*packInstall)(nil)

// Resolve returns the packed object id, else the store's copy, else nil.
func (p *packInstall) Resolve(id OID) (*Object, error) {
	if o := p.packed[id]; o != nil {
		return o, nil
	}
	o, err := p.store.Get(p.ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return o, err
}

// Present reports whether id is packed or held by the store.
func (p *packInstall) Present(id OID) (bool, error) {
	if p.packed[id] != nil {
		return true, nil
	}
	return p.store.Has(p.ctx, id)
}

// Shallow reports a declared or an existing boundary oid.
func (p *packInstall) Shallow(id OID) bool { return p.declared[id] || p.existing(id) }

// resolvable reports whether a link leaving the pack resolves (SPEC §2.8):
// declared or existing boundary, or present in the store.
func (p *packInstall) resolvable(id OID) (bool, error) {
	if p.Shallow(id) {
		return true, nil
	}
	return p.store.Has(p.ctx, id)
}

// packDependencyOrder orders objs so that every packed link target comes
// before the objects linking to it (SPEC §2.8: install in dependency order).
// Among objects whose targets are all placed, oid order (the order of objs)
// decides, so the order is deterministic. A cycle needs a hash preimage and
// cannot occur; it is still reported rather than looped on.
func packDependencyOrder(objs []*Object, links map[OID][]OID) ([]*Object, error) {
	index := make(map[OID]int, len(objs))
	for i, o := range objs {
		index[o.ID] = i
	}
	pending := make([]int, len(objs))
	dependents := make([][]int, len(objs))
	for i, o := range objs {
		for _, l := range sortedOIDs(links[o.ID]) {
			if j, in := index[l]; in {
				pending[i]++
				dependents[j] = append(dependents[j], i)
			}
		}
	}
	ready := make([]int, 0, len(objs))
	for i := range objs {
		if pending[i] == 0 {
			ready = append(ready, i)
		}
	}
	order := make([]*Object, 0, len(objs))
	for n := 0; n < len(ready); n++ {
		i := ready[n]
		order = append(order, objs[i])
		for _, j := range dependents[i] {
			if pending[j]--; pending[j] == 0 {
				ready = append(ready, j)
			}
		}
	}
	if len(order) != len(objs) {
		return nil, errors.New("packed objects link in a cycle")
	}
	return order, nil
}

// DependencyOrder returns objs ordered link targets first, the order
// InstallPack writes in (SPEC §2.8), for a receiver that stores a frame's
// objects through another path (a transport's sink). Ties go by oid.
func DependencyOrder(objs []*Object) ([]*Object, error) {
	return DependencyOrderWith(objs, Links)
}

// DependencyOrderWith is DependencyOrder taking each object's links from
// links (a caller that already parsed them passes its memo; it must
// answer what Links answers).
func DependencyOrderWith(objs []*Object, links func(*Object) ([]OID, error)) ([]*Object, error) {
	sorted := slices.Clone(objs)
	slices.SortFunc(sorted, func(x, y *Object) int { return x.ID.Compare(y.ID) })
	linkMap := make(map[OID][]OID, len(sorted))
	for _, o := range sorted {
		ls, err := links(o)
		if err != nil {
			return nil, err
		}
		linkMap[o.ID] = ls
	}
	return packDependencyOrder(sorted, linkMap)
}
