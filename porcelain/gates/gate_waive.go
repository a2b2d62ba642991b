package gates

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// GateNoteOptions configures GateWaive and GateAcknowledge.
type GateNoteOptions struct {
	// Root is the project directory ("" is the current one).
	Root string
	// ID names the constraint.
	ID string
	// Reason is the human's reason; it must not be blank.
	Reason string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflog.
	Actor string
}

// GateNoteResult is what a waiver or acknowledgement wrote.
type GateNoteResult struct {
	Kind        string `json:"kind"`
	ID          string `json:"constraint_id"`
	Verdict     string `json:"verdict"`
	InputDigest string `json:"input_digest"`
	Event       string `json:"event"`
	Run         string `json:"run"`
	Annotation  string `json:"annotation"`
	Ref         string `json:"ref"`
	Reason      string `json:"reason"`
}

// GateWaive records a human waiver for the exact fresh failing evidence of
// a deterministic constraint (SPEC §4): gate.NewWaiver's rules decide, and
// the waiver is an annotation bound to that evidence event. gate ci and
// the push phase ignore it; any relevant change voids it.
func GateWaive(ctx context.Context, r *plumbing.Repo, opt GateNoteOptions) (*GateNoteResult, error) {
	return gateNote(ctx, r, opt, GateWaiverKind)
}

// GateAcknowledge records why an advisory constraint's fresh non-pass
// evidence is accepted (SPEC §4). It never changes a verdict.
func GateAcknowledge(ctx context.Context, r *plumbing.Repo, opt GateNoteOptions) (*GateNoteResult, error) {
	return gateNote(ctx, r, opt, GateAckKind)
}

func gateNote(ctx context.Context, r *plumbing.Repo, opt GateNoteOptions, kind string) (*GateNoteResult, error) {
	proj, err := LoadGateProject(opt.Root)
	if err != nil {
		return nil, err
	}
	c := proj.Contract.Constraint(opt.ID)
	if c == nil {
		return nil, fmt.Errorf("%w %s in %s", gate.ErrUnknownConstraint, opt.ID, proj.ContractPath)
	}
	digest, err := gate.ComputeInputDigest(proj.Root, proj.Contract, c, proj.Checkout)
	if err != nil {
		return nil, err
	}
	rec, err := newGateCache(r).lookup(ctx, c, digest)
	if err != nil {
		return nil, err
	}
	var ev *gate.Evidence
	if rec != nil {
		ev = rec.Evidence
	}
	value := []objects.Member{m("kind", objects.String(kind)), m("constraint_id", objects.String(c.ID))}
	if kind == GateWaiverKind {
		w, err := gate.NewWaiver(proj.Contract, c.ID, ev, digest, opt.Reason)
		if err != nil {
			return nil, err
		}
		value = append(value, m("input_digest", objects.String(w.InputDigest)),
			m("contract_digest", objects.String(w.ContractDigest)), m("evidence_digest", objects.String(w.EvidenceDigest)))
	} else {
		a, err := gate.NewAcknowledgement(proj.Contract, c.ID, ev, digest, opt.Reason)
		if err != nil {
			return nil, err
		}
		value = append(value, m("input_digest", objects.String(digest)), m("evidence_digest", objects.String(a.EvidenceDigest)))
	}
	run, err := gateRunHolding(ctx, r.Objects(), r.Refs(), rec.Event)
	if err != nil {
		return nil, err
	}
	value = append(value, m("evidence_event", objects.String(rec.Event.String())),
		m("reason", objects.String(opt.Reason)), m("created_at", runs.UnixSeconds(runs.Clock(opt.Now)())))
	ref := "annotations/" + run.Hex()
	expect, prev := refs.ExpectAbsent, objects.Null()
	if cur, err := r.Refs().Read(ctx, ref); err == nil {
		expect, prev = refs.ExpectValue(cur), objects.String(cur.String())
	} else if !errors.Is(err, refs.ErrNotFound) {
		return nil, fmt.Errorf("ref %s: %w", ref, err)
	}
	o, err := objects.NewJSONObject(r.Algo(), objects.TypeAnnotation, 1, objects.ObjectValue(
		m("target_id", objects.String(run.String())),
		m("previous_id", prev),
		m("evidence_ids", runs.OIDValues([]objects.OID{rec.Event})),
		m("value", objects.ObjectValue(value...)),
	))
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", kind, c.ID, err)
	}
	if err := commitAnnotation(ctx, r, r.Refs(), ref, expect, opt.Actor, o); err != nil {
		return nil, err
	}
	_ = runs.RefreshIndex(ctx, r) // derived data: see refreshIndex
	return &GateNoteResult{Kind: kind, ID: c.ID, Verdict: string(ev.Verdict), InputDigest: digest, Event: rec.Event.String(),
		Run: run.String(), Annotation: o.ID.String(), Ref: ref, Reason: opt.Reason}, nil
}

// ObjectWriter stores objects through plumbing's one validated write path
// (*plumbing.Repo is one).
type ObjectWriter interface {
	WriteValidated(ctx context.Context, objs []*objects.Object, check plumbing.WriteCheck) ([]bool, error)
}

// RefUpdater moves a ref by compare-and-swap (*refs.Store is one).
type RefUpdater interface {
	UpdateExpect(ctx context.Context, name string, id objects.OID, expect refs.Expect, actor string) error
}

// commitAnnotation validates o (links and the chain rule), stores it
// through w and moves ref to it by compare-and-swap through ru.
func commitAnnotation(ctx context.Context, w ObjectWriter, ru RefUpdater, ref string, expect refs.Expect, actor string, o *objects.Object) error {
	if _, err := w.WriteValidated(ctx, []*objects.Object{o}, objects.CheckAnnotationChain); err != nil {
		return err
	}
	if actor == "" {
		actor = runs.DefaultActor
	}
	if err := ru.UpdateExpect(ctx, ref, o.ID, expect, actor); err != nil {
		return fmt.Errorf("move %s to %s: %w", ref, o.ID, err)
	}
	return nil
}

// gateRunHolding returns the newest gate run (a run a ref under
// GateRefPrefix names) whose events include event.
func gateRunHolding(ctx context.Context, g objects.Getter, rl runs.RefLister, event objects.OID) (objects.OID, error) {
	var best objects.OID
	bestAt := -1.0
	err := runs.ListRuns(ctx, rl, g, GateRefPrefix, func(_ string, run *runs.Run) error {
		if !runs.ContainsOID(run.EventIDs(), event) {
			return nil
		}
		if run.CreatedAt > bestAt {
			best, bestAt = run.ID, run.CreatedAt
		}
		return nil
	})
	if err != nil {
		return objects.OID{}, err
	}
	if best.IsZero() {
		return objects.OID{}, fmt.Errorf("%w: evidence event %s is in no gate run under %s", ErrGateNoEvidence, event, GateRefPrefix)
	}
	return best, nil
}
