package gate

import (
	"slices"

	"github.com/tinehq/tine/objects"
)

// A waiver is a human's local decision to accept one failing result
// (SPEC §4); ConstraintLoop keeps "CI's uncached, waiver-free run" as the
// only hard enforcement. A release policy therefore reads a gate claim's
// waivers before its decision: this file says which waived constraints a
// claim admits to.

// WaivedRequired returns the constraints of a gate claim that passed only
// by a waiver and are not known to be advisory, sorted. It reads both
// claim.waived ({id: enforcement}, written since waivers were recorded in
// the claim) and claim.verdicts (a waived result reads "waived", also in
// older claims), and fails closed: a waived constraint whose enforcement
// is not "advisory", or a malformed waived member, counts as required.
func WaivedRequired(claim objects.Value) []string {
	var out []string
	advisory := map[string]bool{}
	if w, ok := claim.Get(ClaimWaived); ok {
		if w.Kind != objects.KindObject {
			return []string{"(malformed " + ClaimWaived + ")"}
		}
		for _, m := range w.Object {
			if m.Value.Kind == objects.KindString && m.Value.Str == EnforcementAdvisory {
				advisory[m.Key] = true
			} else {
				out = append(out, m.Key)
			}
		}
	}
	if v, ok := claim.Get("verdicts"); ok && v.Kind == objects.KindObject {
		for _, m := range v.Object {
			if m.Value.Kind == objects.KindString && m.Value.Str == string(Waived) && !advisory[m.Key] && !slices.Contains(out, m.Key) {
				out = append(out, m.Key)
			}
		}
	}
	slices.Sort(out)
	return out
}
