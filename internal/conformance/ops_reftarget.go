package conformance

import (
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

func init() { register("ref.target", opRefTarget) }

// opRefTarget applies the typed-target rules of SPEC §2.5 to the oid a ref
// named args.name would hold. The oid must parse; when its object is among
// args.objects, refs.CheckTarget judges the object itself. Otherwise only
// the oid's type is known: CheckTarget is given an object that carries just
// the id and type, except for an annotation under annotations/, whose name
// rule needs the body the case did not supply (the reference skips that
// check too).
func opRefTarget(h *Handler, in Input, args opArgs) (map[string]any, error) {
	if args.Name == nil {
		return nil, fmt.Errorf("%w: ref.target needs a name", errArgs)
	}
	s, err := in.stringValue(objects.ReasonOidMalformed)
	if err != nil {
		return nil, err
	}
	id, err := objects.ParseOIDFor(h.Algo, s)
	if err != nil {
		return nil, err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return nil, err
	}
	if o, ok := repo.stored[id]; ok {
		return nil, refs.CheckTarget(*args.Name, o)
	}
	if refs.NamespaceOf(*args.Name) == refs.NamespaceAnnotations && id.Type == objects.TypeAnnotation {
		return nil, nil
	}
	return nil, refs.CheckTarget(*args.Name, &objects.Object{ID: id, Type: id.Type})
}
