package index

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// extractAttestation reads the catalog's view of an attestation payload
// (SPEC §3.5: target_id, claim, signer; an evaluation's claim is
// {"kind":"evaluation","scores":{name: finite number}}). Unusable members
// are left out rather than failing the build: the object itself stays the
// authority and callers re-read it.
func extractAttestation(o *objects.Object) Attestation {
	a := Attestation{ID: o.ID}
	pl := o.Value
	if v, ok := pl.Get("target_id"); ok && v.Kind == objects.KindString {
		if id, err := objects.ParseOIDFor(o.ID.Algo, v.Str); err == nil && id.Type == objects.TypeRun {
			a.Target = id
		}
	}
	if v, ok := pl.Get("signer"); ok && v.Kind == objects.KindString && len(v.Str) <= MaxStringBytes {
		a.Signer = v.Str
	}
	if sig, ok := pl.Get("signature"); ok && sig.Kind != objects.KindNull {
		a.Signed = true
		if at := strMember(sig, "signed_at"); len(at) <= MaxStringBytes {
			a.SignedAt = at
		}
	}
	claim, ok := pl.Get("claim")
	if !ok || claim.Kind != objects.KindObject {
		return a
	}
	if v, ok := claim.Get("kind"); ok && v.Kind == objects.KindString && len(v.Str) <= MaxStringBytes {
		a.Kind = v.Str
	}
	for _, m := range claim.Object {
		if m.Key == "kind" || m.Value.Kind != objects.KindString || !storable(m.Key) || len(m.Value.Str) > MaxStringBytes {
			continue
		}
		a.Fields = append(a.Fields, Field{Name: m.Key, Value: m.Value.Str})
	}
	slices.SortFunc(a.Fields, func(x, y Field) int { return cmp.Compare(x.Name, y.Name) })
	a.Fields = a.Fields[:min(len(a.Fields), MaxClaimFields)]
	if a.Kind == KindEvaluation {
		a.Scores = extractScores(claim)
	}
	return a
}

// extractScores returns the finite numeric scores of an evaluation claim,
// sorted by name and bounded by MaxScores.
func extractScores(claim objects.Value) []Score {
	scores, ok := claim.Get("scores")
	if !ok || scores.Kind != objects.KindObject {
		return nil
	}
	var out []Score
	for _, m := range scores.Object {
		f, ok := finiteNumber(m.Value)
		if !ok || !storable(m.Key) {
			continue
		}
		out = append(out, Score{Name: m.Key, Value: f})
	}
	slices.SortFunc(out, func(x, y Score) int { return cmp.Compare(x.Name, y.Name) })
	return out[:min(len(out), MaxScores)]
}

// finiteNumber converts a JSON number to a finite float64.
func finiteNumber(v objects.Value) (float64, bool) {
	var f float64
	switch {
	case v.Kind == objects.KindInt && v.Big != nil:
		f, _ = new(big.Float).SetInt(v.Big).Float64()
	case v.Kind == objects.KindInt:
		f = float64(v.Int)
	case v.Kind == objects.KindFloat:
		f = v.Float
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// storable reports whether s may be a name or key in the catalog.
func storable(s string) bool { return s != "" && len(s) <= MaxStringBytes }

// extractAnnotation reads an annotation's target (SPEC §3.5: optional, any
// oid when truthy).
func extractAnnotation(o *objects.Object) Annotation {
	a := Annotation{ID: o.ID}
	if v, ok := o.Value.Get("target_id"); ok && v.Kind == objects.KindString {
		if id, err := objects.ParseOIDFor(o.ID.Algo, v.Str); err == nil {
			a.Target = id
		}
	}
	return a
}

// extractKeys returns the evidence rows an event contributes under rules.
func extractKeys(o *objects.Object, rules []EvidenceRule) []KeyedEvent {
	var out []KeyedEvent
	for _, r := range rules {
		if r.Kind != "" {
			k, ok := o.Value.Get("kind")
			if !ok || k.Kind != objects.KindString || k.Str != r.Kind {
				continue
			}
		}
		v, ok := lookupPath(o.Value, r.Path)
		if !ok || v.Kind != objects.KindString || !storable(v.Str) {
			continue
		}
		out = append(out, KeyedEvent{Event: o.ID, Table: r.Table, Key: v.Str})
	}
	return out
}

// lookupPath follows a dot-separated member path through nested objects.
func lookupPath(v objects.Value, path string) (objects.Value, bool) {
	for _, part := range strings.Split(path, ".") {
		next, ok := v.Get(part)
		if !ok {
			return objects.Value{}, false
		}
		v = next
	}
	return v, true
}

// runEvents returns the event oids a run payload lists (SPEC §3.5 run
// events); entries that are not event oids of the run's profile are
// skipped, as link validation would have refused them anyway.
func runEvents(o *objects.Object) []objects.OID {
	v, ok := o.Value.Get("events")
	if !ok || v.Kind != objects.KindArray {
		return nil
	}
	out := make([]objects.OID, 0, len(v.Array))
	for _, e := range v.Array {
		if e.Kind != objects.KindString {
			continue
		}
		if id, err := objects.ParseOIDFor(o.ID.Algo, e.Str); err == nil && id.Type == objects.TypeEvent {
			out = append(out, id)
		}
	}
	return out
}

// forkSource returns forked_from.run of a run payload, if it names a run.
func forkSource(o *runView) (objects.OID, bool) {
	ff, ok := o.members.Get("forked_from")
	if !ok {
		return objects.OID{}, false
	}
	v, ok := ff.Get("run")
	if !ok || v.Kind != objects.KindString {
		return objects.OID{}, false
	}
	id, err := objects.ParseOIDFor(o.id.Algo, v.Str)
	return id, err == nil && id.Type == objects.TypeRun
}
