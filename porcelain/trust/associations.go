package trust

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// RunAttestation is one attestation on a run, as show and attestations
// list it: its claim's kind, an evaluation's scores, a gate's decision,
// the claim's other string fields, the signer and the signature's state.
type RunAttestation struct {
	OID    string `json:"oid"`
	Kind   string `json:"kind"`
	Signer string `json:"signer,omitempty"`
	// Scores are an evaluation's numeric scores.
	Scores map[string]float64 `json:"scores,omitempty"`
	// Decision is a gate attestation's decision (pass, fail, ...).
	Decision string `json:"decision,omitempty"`
	// Fields are the claim's other top-level string members.
	Fields map[string]string `json:"fields,omitempty"`
	// Signature is the verdict with the keys given; with none, an Ed25519
	// signature is checked against the key embedded in it
	// (verified-tofu: intact, but the key is not one the caller trusts)
	// and an HMAC one cannot be checked (no-key).
	Signature objects.Verdict `json:"signature"`
}

// RunAssociations is what points at a run: attestations on it, the
// current value of its annotation chain and the refs naming it.
type RunAssociations struct {
	Run          string           `json:"run"`
	Attestations []RunAttestation `json:"attestations"`
	// Annotations are the metadata of the head of annotations/<digest>
	// (tine annotate); AnnotationTags its tags.
	Annotations    map[string]string `json:"annotations"`
	AnnotationTags []string          `json:"annotation_tags,omitempty"`
	// Refs are every ref naming the run (heads/, experiments/, tags/,
	// promotions/, remotes/), sorted.
	Refs []string `json:"refs"`
}

// Associations returns what points at run, found through the derived
// catalog (attestations by target, refs by run; brought up to date first)
// and read back through the store, which verifies every object. Each
// attestation's signature is checked against the key embedded in it
// (tine verify RUN checks against keys the caller trusts).
func Associations(ctx context.Context, r *plumbing.Repo, run objects.OID) (*RunAssociations, error) {
	vopt := objects.VerifyOptions{TrustEmbedded: true}
	cat, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	res := &RunAssociations{Run: run.String(), Attestations: []RunAttestation{}, Annotations: map[string]string{}, Refs: []string{}}
	for _, a := range cat.AttestationsFor(run) {
		o, err := r.Objects().Get(ctx, a.ID)
		if errors.Is(err, objects.ErrNotFound) {
			continue // pruned since the catalog was built: a miss, not a fact
		}
		if err != nil {
			return nil, fmt.Errorf("attestation %s: %w", a.ID, err)
		}
		res.Attestations = append(res.Attestations, describeAttestation(o, vopt))
	}
	for _, name := range cat.RefsOf(run) {
		if refs.NamespaceOf(name) != refs.NamespaceAnnotations {
			res.Refs = append(res.Refs, name)
		}
	}
	sort.Strings(res.Refs)
	if err := readAnnotations(ctx, r, run, res); err != nil {
		return nil, err
	}
	return res, nil
}

// AssociationsAt is Associations of the stored run rev names (a derived
// REV~N is refused), resolved without reading the run's events.
func AssociationsAt(ctx context.Context, r *plumbing.Repo, rev string) (*RunAssociations, error) {
	id, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	if id.Type != objects.TypeRun {
		return nil, fmt.Errorf("%s names a %s, not a run: %w", rev, id.Type, runs.ErrNotRun)
	}
	return Associations(ctx, r, id)
}

// describeAttestation decodes an attestation's claim and checks its
// signature.
func describeAttestation(o *objects.Object, vopt objects.VerifyOptions) RunAttestation {
	ra := RunAttestation{OID: o.ID.String(), Signature: objects.VerifyAttestation(o.Value, vopt)}
	if s, ok := o.Value.Get("signer"); ok && s.Kind == objects.KindString {
		ra.Signer = s.Str
	}
	claim, _ := o.Value.Get("claim")
	for _, m := range claim.Object {
		switch v := m.Value; {
		case m.Key == "kind" && v.Kind == objects.KindString:
			ra.Kind = v.Str
		case m.Key == "scores" && v.Kind == objects.KindObject:
			for _, s := range v.Object {
				if f, ok := runs.Number(s.Value); ok {
					if ra.Scores == nil {
						ra.Scores = map[string]float64{}
					}
					ra.Scores[s.Key] = f
				}
			}
		case m.Key == "decision" && v.Kind == objects.KindString:
			ra.Decision = v.Str
		case v.Kind == objects.KindString:
			if ra.Fields == nil {
				ra.Fields = map[string]string{}
			}
			ra.Fields[m.Key] = v.Str
		}
	}
	return ra
}

// readAnnotations fills res from the head of the run's annotation chain;
// a run never annotated has none.
func readAnnotations(ctx context.Context, r *plumbing.Repo, run objects.OID, res *RunAssociations) error {
	ref := AnnotationRef(run)
	id, err := r.Refs().Read(ctx, ref)
	if errors.Is(err, refs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ref %s: %w", ref, err)
	}
	o, err := r.Objects().Get(ctx, id)
	if err != nil {
		return fmt.Errorf("annotation %s at %s: %w", id, ref, err)
	}
	val, _ := o.Value.Get("value")
	meta, _ := val.Get("metadata")
	for k, v := range stringMembers(meta) {
		res.Annotations[k] = v
	}
	tags, _ := val.Get("tags")
	for _, t := range tags.Array {
		if t.Kind == objects.KindString {
			res.AnnotationTags = append(res.AnnotationTags, t.Str)
		}
	}
	return nil
}

// Tags returns the names under tags/ among refs, without the namespace.
func (a *RunAssociations) Tags() []string { return namesUnder(a.Refs, "tags/") }

// Promotions returns the names under promotions/ among refs.
func (a *RunAssociations) Promotions() []string { return namesUnder(a.Refs, "promotions/") }

// namesUnder returns the refs under prefix with the prefix cut.
func namesUnder(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if rest, ok := strings.CutPrefix(n, prefix); ok {
			out = append(out, rest)
		}
	}
	return out
}
