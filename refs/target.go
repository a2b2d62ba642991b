package refs

import (
	"errors"
	"strings"

	"github.com/tinehq/tine/objects"
)

// CheckTarget applies the typed-target rules of SPEC §2.5 to the object a
// ref would point at: heads/, experiments/ and promotions/ need a run;
// annotations/<x> needs an annotation whose target_id is a run whose 64-hex
// digest is exactly <x>; tags/ and remotes/ take any object. Errors are
// *objects.FormatError with ref.target-type, ref.annotation-name-mismatch or
// oid.malformed (an unparsable target_id). name may carry the "refs/" prefix;
// its grammar is NormalizeName's business, not this function's.
func CheckTarget(name string, target *objects.Object) error {
	if target == nil {
		return errors.New("refs: CheckTarget called without an object")
	}
	ns := NamespaceOf(name)
	want, typed := ns.TargetType()
	if typed && target.Type != want {
		return objects.Errorf(objects.ReasonRefTargetType, "ref %s: %s refs require %s objects, got %s %s", name, ns, want, target.Type, target.ID)
	}
	if ns != NamespaceAnnotations {
		return nil
	}
	tv, ok := target.Value.Get("target_id")
	if !ok || tv.Kind != objects.KindString {
		return objects.Errorf(objects.ReasonRefAnnotationNameMismatch, "ref %s: annotation %s has no string target_id", name, target.ID)
	}
	run, err := objects.ParseOID(tv.Str)
	if err != nil {
		return err
	}
	_, suffix, _ := strings.Cut(strings.TrimPrefix(name, "refs/"), "/")
	if run.Type != objects.TypeRun || suffix != run.Hex() {
		return objects.Errorf(objects.ReasonRefAnnotationNameMismatch, "ref %s: annotation %s targets %s; its ref must be annotations/<that run's digest>", name, target.ID, run)
	}
	return nil
}

// checkHeldTarget checks held, the target of an UpdateHeld, as fetchTarget
// checks a fetched one, without reading anything: the oid's form and
// profile, that held's type is its oid's, and CheckTarget on the caller's
// copy. That the store has it is the caller's word (see UpdateHeld).
func (s *Store) checkHeldTarget(name string, held *objects.Object) error {
	id := held.ID
	if id.IsZero() {
		return objects.Errorf(objects.ReasonOidMalformed, "ref %s: no target oid", name)
	}
	if id.Algo != s.algo {
		return objects.Errorf(objects.ReasonOidMalformed, "ref %s: target %s does not use this repository's %s", name, id, s.algo)
	}
	if held.Type != id.Type {
		return objects.Errorf(objects.ReasonEnvelopeOidMismatch, "ref %s: held object of type %s under oid %s", name, held.Type, id)
	}
	return CheckTarget(name, held)
}
