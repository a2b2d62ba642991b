package plumbing

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// A bundle is a TINEPACK3 frame that also carries refs (`tine pack
// --refs`), so one file hands over a set of experiments: the runs the refs
// name, their link closure and their associations (TransferClosure), and
// the refs themselves. The manifest's key set is fixed (objects, shallow,
// version: SPEC §2.8, pack.manifest-key-set), so the refs travel as one
// more object of the pack, an annotation without a target:
//
//	{"evidence_ids": [every oid the refs name, sorted],
//	 "value": {"format": "tine-bundle/1",
//	           "refs": {"heads/main": "<oid>", ...}}}
//
// evidence_ids makes the ref targets links of the annotation (SPEC §1.5.3),
// so the pack's own closure rule proves they are in the frame. An OpenTine
// reader installs it as an ordinary unreferenced annotation; tine's unpack
// reads it, does not store it, and installs the refs (InstallBundleRefs).

// BundleFormat is the value.format of a bundle's ref-list annotation.
const BundleFormat = "tine-bundle/1"

// ErrBadBundle means a bundle's ref list was refused.
var ErrBadBundle = errors.New("bad bundle ref list")

// BundleRef is one ref a bundle carries, as pack reports it.
type BundleRef struct {
	Name string `json:"name"`
	OID  string `json:"oid"`
}

// bundleRef is one ref of a bundle's list.
type bundleRef struct {
	name string
	id   objects.OID
}

// bundleAnnotation builds the ref-list annotation of refs (sorted by name).
func bundleAnnotation(a objects.Algo, list []bundleRef) (*objects.Object, error) {
	var targets []objects.OID
	seen := map[objects.OID]bool{}
	ms := make([]objects.Member, 0, len(list))
	for _, br := range list {
		ms = append(ms, objects.Member{Key: br.name, Value: objects.String(br.id.String())})
		if !seen[br.id] {
			seen[br.id] = true
			targets = append(targets, br.id)
		}
	}
	slices.SortFunc(targets, objects.OID.Compare)
	ids := make([]objects.Value, len(targets))
	for i, id := range targets {
		ids[i] = objects.String(id.String())
	}
	return objects.NewJSONObject(a, objects.TypeAnnotation, 1, objects.ObjectValue(
		objects.Member{Key: "evidence_ids", Value: objects.Array(ids...)},
		objects.Member{Key: "value", Value: objects.ObjectValue(
			objects.Member{Key: "format", Value: objects.String(BundleFormat)},
			objects.Member{Key: "refs", Value: objects.ObjectValue(ms...)},
		)},
	))
}

// bundleRefs returns the ref list of o when it is a bundle's ref-list
// annotation: (nil, false, nil) when it is not one, an error wrapping
// ErrBadBundle when it claims the format but breaks its rules (a ref name
// that is not valid, an oid of another hash, a target not among its
// evidence_ids).
func bundleRefs(a objects.Algo, o *objects.Object) ([]bundleRef, bool, error) {
	if o.Type != objects.TypeAnnotation {
		return nil, false, nil
	}
	val, ok := o.Value.Get("value")
	if !ok || val.Kind != objects.KindObject {
		return nil, false, nil
	}
	if f, ok := val.Get("format"); !ok || f.Kind != objects.KindString || f.Str != BundleFormat {
		return nil, false, nil
	}
	if t, ok := o.Value.Get("target_id"); ok && t.Truthy() {
		return nil, true, fmt.Errorf("%w: %s has a target_id", ErrBadBundle, o.ID)
	}
	linked := map[objects.OID]bool{}
	if ev, ok := o.Value.Get("evidence_ids"); ok && ev.Kind == objects.KindArray {
		for _, e := range ev.Array {
			if id, err := objects.ParseOIDFor(a, e.Str); err == nil {
				linked[id] = true
			}
		}
	}
	rv, ok := val.Get("refs")
	if !ok || rv.Kind != objects.KindObject {
		return nil, true, fmt.Errorf("%w: %s has no refs object", ErrBadBundle, o.ID)
	}
	list := make([]bundleRef, 0, len(rv.Object))
	for _, m := range rv.Object {
		name, err := refs.NormalizeName(m.Key)
		if err != nil || name != m.Key {
			return nil, true, fmt.Errorf("%w: ref name %q: not a normalized ref name", ErrBadBundle, clip(m.Key))
		}
		if m.Value.Kind != objects.KindString {
			return nil, true, fmt.Errorf("%w: %s: value is a JSON %s, not an oid", ErrBadBundle, name, m.Value.Kind)
		}
		id, err := objects.ParseOIDFor(a, m.Value.Str)
		if err != nil {
			return nil, true, fmt.Errorf("%w: %s: %w", ErrBadBundle, name, err)
		}
		if !linked[id] {
			return nil, true, fmt.Errorf("%w: %s names %s, which the list's evidence_ids do not link", ErrBadBundle, name, id)
		}
		list = append(list, bundleRef{name: name, id: id})
	}
	return list, true, nil
}

// clip shortens untrusted text for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:80], "") + "..."
	}
	return s
}
