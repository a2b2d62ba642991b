package trust

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// AnnotationCompatibility is the compatibility tag of the run-metadata
// annotations tine writes, OpenTine's compatibility writer's shape (SPEC
// §3.5): {"compatibility","previous_id","target_id","value":{"metadata",
// "tags"}}.
const AnnotationCompatibility = "run-metadata-v1"

// MaxAnnotationKey bounds a metadata key.
const MaxAnnotationKey = 256

// AnnotateOptions configures Annotate.
type AnnotateOptions struct {
	// Target is a revision naming a stored run.
	Target string
	// Set are KEY=VALUE pairs (string values); Unset are keys to remove.
	Set   []string
	Unset []string
	// Actor names the writer in the annotations ref's reflog.
	Actor string
}

// AnnotateResult is what `tine annotate` reports.
type AnnotateResult struct {
	OID      string            `json:"oid"`
	Ref      string            `json:"ref"`
	Target   string            `json:"target"`
	Previous string            `json:"previous,omitempty"`
	Metadata map[string]string `json:"metadata"`
	// Unchanged reports that the edit changed nothing, so no annotation
	// was written and the ref did not move.
	Unchanged bool `json:"unchanged,omitempty"`
}

// AnnotationRef returns the ref of run's annotation chain:
// annotations/<run's 64-hex digest> (SPEC §2.5).
func AnnotationRef(run objects.OID) string { return "annotations/" + run.Hex() }

// Annotate appends one annotation to the run's chain. The chain's head
// holds the whole current state, so the new value is the previous
// annotation's value with Set applied and Unset removed (metadata merged,
// tags kept): reading the head suffices, and previous_id keeps the
// history. The ref moves by compare-and-swap from the head the value was
// built on; a concurrent annotator makes it fail with *refs.StaleError.
func Annotate(ctx context.Context, r *plumbing.Repo, opt AnnotateOptions) (*AnnotateResult, error) {
	if len(opt.Set) == 0 && len(opt.Unset) == 0 {
		return nil, fmt.Errorf("annotate: give --set KEY=VALUE or --unset KEY: %w", ErrBadAnnotation)
	}
	run, err := storedRun(ctx, r, opt.Target)
	if err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	ref := AnnotationRef(run)
	res := &AnnotateResult{Ref: ref, Target: run.String()}
	meta, tags := objects.ObjectValue(), objects.Array()
	expect := refs.ExpectAbsent
	prev := objects.Null()
	cur, err := r.Refs().Read(ctx, ref)
	switch {
	case errors.Is(err, refs.ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("annotate: ref %s: %w", ref, err)
	default:
		o, err := r.Objects().Get(ctx, cur)
		if err != nil {
			return nil, fmt.Errorf("annotate: %s: annotation %s: %w", ref, cur, err)
		}
		if v, ok := o.Value.Get("value"); ok {
			if m, ok := v.Get("metadata"); ok && m.Kind == objects.KindObject {
				meta = m
			}
			if t, ok := v.Get("tags"); ok && t.Kind == objects.KindArray {
				tags = t
			}
		}
		expect, prev, res.Previous = refs.ExpectValue(cur), objects.String(cur.String()), cur.String()
	}
	next, err := editMetadata(meta, opt.Set, opt.Unset)
	if err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	// Redact before comparing, so re-setting a secret is not a change.
	next, _ = objects.RedactValue(next)
	res.Metadata = stringMembers(next)
	if res.Previous != "" && sameMembers(meta, next) {
		// Confirmed under the guard like any write of the ref, which
		// recovers what a killed writer of it left (refs.Store.Verify).
		if err := r.Refs().Verify(ctx, ref, expect); err != nil {
			return nil, fmt.Errorf("annotate: %s: %w", ref, err)
		}
		res.OID, res.Unchanged = res.Previous, true
		return res, nil
	}
	payload := objects.ObjectValue(
		objects.Member{Key: "compatibility", Value: objects.String(AnnotationCompatibility)},
		objects.Member{Key: "previous_id", Value: prev},
		objects.Member{Key: "target_id", Value: objects.String(run.String())},
		objects.Member{Key: "value", Value: objects.ObjectValue(
			objects.Member{Key: "metadata", Value: next},
			objects.Member{Key: "tags", Value: tags},
		)},
	)
	o, err := objects.RedactObject(r.Algo(), objects.TypeAnnotation, 1, payload)
	if err != nil {
		return nil, fmt.Errorf("annotate %s: %w", run, err)
	}
	if _, err := r.WriteValidated(ctx, []*objects.Object{o}, nil); err != nil {
		return nil, fmt.Errorf("annotate: %w", err)
	}
	if err := r.Refs().UpdateExpect(ctx, ref, o.ID, expect, runs.OrDefault(opt.Actor, runs.DefaultActor)); err != nil {
		return nil, fmt.Errorf("annotate: move %s: %w", ref, err)
	}
	res.OID = o.ID.String()
	return res, nil
}

// editMetadata applies set (KEY=VALUE) and unset (KEY) to meta, keeping
// member order and appending new keys; the result is a new object.
func editMetadata(meta objects.Value, set, unset []string) (objects.Value, error) {
	ms := slices.Clone(meta.Object)
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return objects.Value{}, fmt.Errorf("--set %q: want KEY=VALUE: %w", kv, ErrBadAnnotation)
		}
		if err := checkAnnotationKey(k); err != nil {
			return objects.Value{}, err
		}
		i := slices.IndexFunc(ms, func(m objects.Member) bool { return m.Key == k })
		if i < 0 {
			ms = append(ms, objects.Member{Key: k, Value: objects.String(v)})
		} else {
			ms[i].Value = objects.String(v)
		}
	}
	for _, k := range unset {
		if err := checkAnnotationKey(k); err != nil {
			return objects.Value{}, err
		}
		ms = slices.DeleteFunc(ms, func(m objects.Member) bool { return m.Key == k })
	}
	return objects.ObjectValue(ms...), nil
}

// checkAnnotationKey refuses empty, overlong and control-character keys.
func checkAnnotationKey(k string) error {
	if k == "" || len(k) > MaxAnnotationKey || strings.IndexFunc(k, unicode.IsControl) >= 0 {
		return fmt.Errorf("key %q: want 1-%d printable bytes: %w", k, MaxAnnotationKey, ErrBadAnnotation)
	}
	return nil
}

// sameMembers reports whether two objects hold the same canonical form.
func sameMembers(a, b objects.Value) bool {
	ca, err1 := objects.CanonV3(a)
	cb, err2 := objects.CanonV3(b)
	return err1 == nil && err2 == nil && string(ca) == string(cb)
}

// stringMembers returns an object's members for display: strings as they
// are, anything else as its canonical JSON.
func stringMembers(v objects.Value) map[string]string {
	out := make(map[string]string, len(v.Object))
	for _, m := range v.Object {
		if m.Value.Kind == objects.KindString {
			out[m.Key] = m.Value.Str
		} else if b, err := objects.CanonV3(m.Value); err == nil {
			out[m.Key] = string(b)
		}
	}
	return out
}
