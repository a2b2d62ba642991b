package conformance

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// argsRepo is the repository an op reads against, built from its args
// (PROTOCOL "The ops"): objects are stored envelopes, present oids exist
// without content, shallow oids are the declared shallow boundary. It
// implements objects.Resolver and objects.PresenceChecker.
type argsRepo struct {
	stored  map[objects.OID]*objects.Object
	present map[objects.OID]bool
	shallow map[objects.OID]bool
}

// newArgsRepo decodes args.objects (strict base64, then the full envelope
// decode: a bad stored object fails the op, as it would in a repository)
// and collects present and shallow. A present or shallow entry that is not
// an oid of the profile can never equal a link, so it is ignored.
func newArgsRepo(a objects.Algo, args opArgs) (*argsRepo, error) {
	r := &argsRepo{stored: map[objects.OID]*objects.Object{}, present: map[objects.OID]bool{}, shallow: map[objects.OID]bool{}}
	if args.Objects != nil {
		for i, enc := range *args.Objects {
			raw, err := decodeStrictBase64([]byte(enc))
			if err != nil {
				return nil, fmt.Errorf("args.objects[%d]: %w", i, err)
			}
			o, err := objects.DecodeEnvelope(a, raw)
			if err != nil {
				return nil, fmt.Errorf("args.objects[%d]: %w", i, err)
			}
			r.stored[o.ID] = o
		}
	}
	collect := func(list *[]string, into map[objects.OID]bool) {
		if list == nil {
			return
		}
		for _, s := range *list {
			if id, err := objects.ParseOIDFor(a, s); err == nil {
				into[id] = true
			}
		}
	}
	collect(args.Present, r.present)
	collect(args.Shallow, r.shallow)
	return r, nil
}

// checksExistence reports whether the op was told what exists. Without any
// of present, objects or shallow the reference skips the link-existence
// check (SPEC §1.5.6 needs a repository to check against).
func checksExistence(args opArgs) bool {
	return args.Present != nil || args.Objects != nil || args.Shallow != nil
}

// Resolve returns a supplied object, errContentUnavailable for one that is
// only declared present, and (nil, nil) otherwise.
func (r *argsRepo) Resolve(id objects.OID) (*objects.Object, error) {
	if o, ok := r.stored[id]; ok {
		return o, nil
	}
	if r.present[id] {
		return nil, fmt.Errorf("%s: %w", id, errContentUnavailable)
	}
	return nil, nil
}

// Present reports whether id exists, with or without content.
func (r *argsRepo) Present(id objects.OID) (bool, error) {
	_, ok := r.stored[id]
	return ok || r.present[id], nil
}

// Shallow reports whether id is on the declared shallow boundary.
func (r *argsRepo) Shallow(id objects.OID) bool { return r.shallow[id] }
