package plumbing

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// selectBundleRefs resolves `tine pack --refs` arguments to refs: a ref
// name (full, or short as rev-parse spells it: main), or a glob over full
// names (experiments/tune/*, path.Match syntax); none means every ref
// outside remotes/. Then the annotations/ refs whose chain targets one of
// the selected runs are added, so a run's notes travel with it. The list
// is sorted by name; a name or glob matching nothing is an error.
func selectBundleRefs(ctx context.Context, r *Repo, args []string) ([]bundleRef, error) {
	all := map[string]objects.OID{}
	if err := r.Refs().List(ctx, "", func(name string, id objects.OID) error {
		all[name] = id
		return nil
	}); err != nil {
		return nil, err
	}
	chosen := map[string]objects.OID{}
	if len(args) == 0 {
		for name, id := range all {
			if refs.NamespaceOf(name) != refs.NamespaceRemotes {
				chosen[name] = id
			}
		}
	}
	for _, arg := range args {
		if strings.ContainsAny(arg, "*?[") {
			n := 0
			for name, id := range all {
				if ok, err := path.Match(strings.TrimPrefix(arg, "refs/"), name); err != nil {
					return nil, fmt.Errorf("pattern %q: %w: %w", arg, err, ErrBadInput)
				} else if ok {
					chosen[name], n = id, n+1
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("pattern %q matches no ref: %w", arg, ErrBadInput)
			}
			continue
		}
		if strings.Contains(arg, "@{") || strings.Contains(arg, "~") {
			return nil, fmt.Errorf("%s names a past value, not a ref (pack --refs carries refs as they are): %w", arg, ErrBadInput)
		}
		id, name, err := r.ResolveRevision(ctx, arg)
		if err != nil {
			return nil, err
		}
		if name == "" || all[name] != id {
			return nil, fmt.Errorf("%s is not a ref (pack --refs carries refs; pack an object without --refs): %w", arg, ErrBadInput)
		}
		chosen[name] = id
	}
	if err := addAnnotationRefs(ctx, r, all, chosen); err != nil {
		return nil, err
	}
	list := make([]bundleRef, 0, len(chosen))
	for name, id := range chosen {
		list = append(list, bundleRef{name: name, id: id})
	}
	slices.SortFunc(list, func(a, b bundleRef) int { return strings.Compare(a.name, b.name) })
	return list, nil
}

// addAnnotationRefs adds to chosen every annotations/ ref whose annotation
// targets a run chosen names.
func addAnnotationRefs(ctx context.Context, r *Repo, all, chosen map[string]objects.OID) error {
	runs := map[objects.OID]bool{}
	for _, id := range chosen {
		if id.Type == objects.TypeRun {
			runs[id] = true
		}
	}
	for name, id := range all {
		if refs.NamespaceOf(name) != refs.NamespaceAnnotations || !chosen[name].IsZero() {
			continue
		}
		o, err := r.Objects().Get(ctx, id)
		if err != nil {
			return fmt.Errorf("ref %s: %w", name, err)
		}
		t, ok := o.Value.Get("target_id")
		if !ok || t.Kind != objects.KindString {
			continue
		}
		if tid, err := objects.ParseOIDFor(r.Algo(), t.Str); err == nil && runs[tid] {
			chosen[name] = id
		}
	}
	return nil
}

// bundleObjects is what `tine pack --refs` packs: the transfer closure of
// the refs' targets with their associations (TransferClosure, as a push
// carries them), then the ref-list annotation, and the boundary.
func bundleObjects(ctx context.Context, r *Repo, list []bundleRef) ([]*objects.Object, []objects.OID, int, error) {
	src, err := RepoTransferSource(ctx, r)
	if err != nil {
		return nil, nil, 0, err
	}
	wants := make([]objects.OID, 0, len(list))
	for _, br := range list {
		if !slices.Contains(wants, br.id) {
			wants = append(wants, br.id)
		}
	}
	set, err := TransferClosure(ctx, src, TransferOptions{Wants: wants, Depth: NoDepth})
	if err != nil {
		return nil, nil, 0, err
	}
	if len(set.IDs)+1 > objects.MaxPackObjects {
		return nil, nil, 0, objects.Errorf(objects.ReasonPackTooManyObjects, "the refs carry %d objects and their ref list, over %d: pack fewer refs", len(set.IDs), objects.MaxPackObjects)
	}
	objs := make([]*objects.Object, 0, len(set.IDs)+1)
	for _, id := range set.IDs {
		o, err := set.Object(ctx, r.Objects(), id)
		if err != nil {
			return nil, nil, 0, err
		}
		objs = append(objs, o)
	}
	ann, err := bundleAnnotation(r.Algo(), list)
	if err != nil {
		return nil, nil, 0, err
	}
	return append(objs, ann), set.Boundary, set.Associations, nil
}
