package gates

import (
	"context"
	"fmt"
	"strings"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// Waivers and acknowledgements are annotations (ARCHITECTURE §4: "a
// waiver is an annotation bound to exactly one evidence event"). SPEC §2.4
// names an annotation ref annotations/<run digest> and requires its
// target_id to be that run, so each one targets the gate run holding the
// evidence event, chains to the ref's previous annotation, and names the
// event itself in evidence_ids and value:
//
//	{"target_id": <gate run>, "previous_id": <previous annotation>|null,
//	 "evidence_ids": [<evidence event>],
//	 "value": {"kind": "gate-waiver" | "gate-acknowledgement",
//	           "constraint_id", "evidence_event", "evidence_digest",
//	           "input_digest", "contract_digest" (waivers), "reason",
//	           "created_at"}}
//
// A waiver binds the input digest, the contract digest and the evidence
// digest (gate.Waiver): any relevant change voids it. Only change and stop
// honour it; push and ci never read it.

// Annotation value kinds.
const (
	GateWaiverKind = "gate-waiver"
	GateAckKind    = "gate-acknowledgement"
)

// maxGateAnnotations bounds the annotations read per load.
const maxGateAnnotations = 100000

// GateAnnotations are the waivers and acknowledgements of a repository,
// by evidence event.
type GateAnnotations struct {
	waivers map[objects.OID][]*gate.Waiver
	acks    map[objects.OID][]*gate.Acknowledgement
}

// LoadGateAnnotations reads every annotation chain under annotations/ and
// keeps the gate waivers and acknowledgements. A malformed one is ignored:
// an unreadable waiver waives nothing (fail closed).
func LoadGateAnnotations(ctx context.Context, g objects.Getter, rl runs.RefLister) (*GateAnnotations, error) {
	ga := &GateAnnotations{waivers: map[objects.OID][]*gate.Waiver{}, acks: map[objects.OID][]*gate.Acknowledgement{}}
	var heads []objects.OID
	err := rl.List(ctx, "annotations/", func(_ string, id objects.OID) error {
		heads = append(heads, id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list annotations: %w", err)
	}
	read := 0
	for _, id := range heads {
		for !id.IsZero() && read < maxGateAnnotations {
			read++
			o, err := g.Get(ctx, id)
			if err != nil || o.Type != objects.TypeAnnotation {
				break
			}
			ga.add(o.Value)
			id, _ = runs.OIDField(o.Value, "previous_id")
		}
	}
	return ga, nil
}

// add keeps one annotation payload when it is a well-formed gate note.
func (ga *GateAnnotations) add(pl objects.Value) {
	v, ok := pl.Get("value")
	if !ok || v.Kind != objects.KindObject {
		return
	}
	ev, ok := runs.OIDField(v, "evidence_event")
	if !ok || ev.Type != objects.TypeEvent {
		return
	}
	id, reason, digest := runs.Str(v, "constraint_id"), runs.Str(v, "reason"), runs.Str(v, "evidence_digest")
	if id == "" || strings.TrimSpace(reason) == "" || digest == "" {
		return
	}
	switch runs.Str(v, "kind") {
	case GateWaiverKind:
		w := &gate.Waiver{ConstraintID: id, InputDigest: runs.Str(v, "input_digest"), ContractDigest: runs.Str(v, "contract_digest"), EvidenceDigest: digest, Reason: reason}
		ga.waivers[ev] = append(ga.waivers[ev], w)
	case GateAckKind:
		ga.acks[ev] = append(ga.acks[ev], &gate.Acknowledgement{ConstraintID: id, EvidenceDigest: digest, Reason: reason})
	}
}

// Waivers returns the waivers bound to evidence event ev.
func (ga *GateAnnotations) Waivers(ev objects.OID) []*gate.Waiver {
	if ga == nil {
		return nil
	}
	return ga.waivers[ev]
}

// Acknowledgement returns an acknowledgement that covers rec exactly, or
// nil (SPEC §4: it settles a stop hook's advisory disposition only).
func (ga *GateAnnotations) Acknowledgement(rec *GateEvidenceRecord) *gate.Acknowledgement {
	if ga == nil || rec == nil {
		return nil
	}
	for _, a := range ga.acks[rec.Event] {
		if a.Covers(rec.Evidence) {
			return a
		}
	}
	return nil
}

// applicableWaiver returns a waiver that validly waives rec now, or nil.
func (ga *GateAnnotations) applicableWaiver(phase gate.Phase, contract *gate.Contract, c *gate.Constraint, rec *GateEvidenceRecord, digest string) *gate.Waiver {
	for _, w := range ga.Waivers(rec.Event) {
		if ok, _ := gate.WaiverApplies(phase, contract, c, rec.Evidence, digest, w); ok {
			return w
		}
	}
	return nil
}

// WaiverStatus says whether any waiver bound to rec applies now, and why
// not (the last refusal) when none does; "" when rec has no waiver.
func (ga *GateAnnotations) WaiverStatus(phase gate.Phase, contract *gate.Contract, c *gate.Constraint, rec *GateEvidenceRecord, digest string) (bool, string) {
	why := ""
	for _, w := range ga.Waivers(rec.Event) {
		ok, reason := gate.WaiverApplies(phase, contract, c, rec.Evidence, digest, w)
		if ok {
			return true, w.Reason
		}
		why = reason
	}
	return false, why
}
