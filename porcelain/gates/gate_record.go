package gates

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
	"github.com/tinehq/tine/refs"
)

// The gate run and its attestation (ARCHITECTURE §4).
//
// A gate run is a new run object (never an append) whose events are the
// evidence events of every planned constraint, in plan order; reused
// evidence is included by oid. Evidence events have no parents, so every
// event is a root and a tip. The run carries
//
//	"status": "completed" when the gate passed, "failed" when it blocked
//	"gate":   the attestation's claim below, without "kind"
//
// and the ref GateRef(phase) moves to it by compare-and-swap. The
// attestation targets the run:
//
//	{"claim": {"kind": "gate", "contract": <contract digest>,
//	           "contract_path": "tine-gate.yml",
//	           "contract_name": <the contract's name:, when it has one>,
//	           "phase": "stop", "decision": "pass"|"fail",
//	           "outcome": "PASS"|..., "verdicts": {id: verdict},
//	           "waived": {id: "required"|"advisory"}, "root_causes": [...]},
//	 "evidence_ids": [evidence event oids],
//	 "signer": <--signer, else the actor, default local>,
//	 "signature": null or a tine-attest/1 block (--key-file),
//	 "target_id": <gate run>}
//
// With --attach a second attestation with the same claim plus
// "gate_run": <gate run oid> targets the attached run, its evidence_ids
// the events and the gate run. Verdicts are the decision's (a waived
// failure reads "waived", and "waived" names it with its enforcement).
// Promotion looks for claim.kind "gate", claim.decision "pass", the
// contract digest or name it requires, and no waived required constraint
// (unless the policy allows waivers).

// Gate decisions as the attestation spells them: "pass" is the value the
// release policy requires (gate.GateDecisionPass), so the writer and the
// policy share one spelling.
const (
	GateDecisionPassed  = gate.GateDecisionPass
	GateDecisionBlocked = "fail"
)

// finish decides and, when recording, writes the gate run and attestations.
func (g *gateEval) finish(attach *runs.Run) (*GateRunResult, error) {
	plan, effective := make([]*gate.Constraint, 0, len(g.results)), make([]*gate.Evidence, 0, len(g.results))
	for _, res := range g.results {
		plan = append(plan, g.proj.Contract.Constraint(res.ID))
		effective = append(effective, res.Effective)
	}
	dec := gate.DecidePlan(g.phase, plan, effective)
	out := &GateRunResult{
		Root: g.proj.Root, ContractPath: g.proj.ContractPath, ContractDigest: g.proj.Contract.Digest, ContractName: g.proj.Contract.Name,
		Phase: string(g.phase), Passed: dec.Passed, Outcome: dec.Outcome, ExitCode: dec.ExitCode,
		Blocking: nonNil(dec.Blocking), RootCauses: nonNil(dec.RootCauses), Waiting: dec.Waiting,
		Advisories: nonNil(dec.Advisories), Results: g.results, Decision: dec, Checkout: g.proj.Checkout,
	}
	if out.Results == nil {
		out.Results = []*GateResult{}
	}
	if g.r == nil {
		return out, nil
	}
	return out, g.record(out, attach)
}

// nonNil returns s, or an empty list for JSON.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// record stores the evidence, the gate run and the attestations.
func (g *gateEval) record(out *GateRunResult, attach *runs.Run) error {
	ctx, r := g.ctx, g.r
	var objs []*objects.Object
	seen := map[objects.OID]bool{}
	for _, w := range g.written {
		for _, o := range []*objects.Object{w.blob, w.event} {
			if !seen[o.ID] {
				seen[o.ID] = true
				objs = append(objs, o)
			}
		}
	}
	events := make([]objects.OID, 0, len(out.Results))
	for _, res := range out.Results {
		id, err := objects.ParseOIDFor(r.Algo(), res.Event)
		if err != nil {
			return fmt.Errorf("gate run: event of %s: %w", res.ID, err)
		}
		if !slices.Contains(events, id) {
			events = append(events, id)
		}
	}
	claim := g.claim(out)
	status := runs.StatusCompleted
	if !out.Passed {
		status = runs.StatusFailed
	}
	members := []objects.Member{
		m("created_at", runs.UnixSeconds(g.now())),
		m("events", runs.OIDValues(events)),
		m("roots", runs.OIDValues(events)),
		m("tips", runs.OIDValues(events)),
		m("status", objects.String(status)),
		m("gate", claimWithout(claim, "kind")),
	}
	if g.code != nil {
		out.Workspace, out.WorkspaceSkipped = g.code.Summary, g.code.Skipped
		if g.code.Blob != nil && !seen[g.code.Blob.ID] {
			objs = append(objs, g.code.Blob)
		}
		if g.code.Blob != nil {
			members = append(members, m("manifests", objects.ObjectValue(m("code", objects.String(g.code.Blob.ID.String())))))
		}
	}
	run, err := objects.NewJSONObject(r.Algo(), objects.TypeRun, 1, objects.ObjectValue(members...))
	if err != nil {
		return fmt.Errorf("gate run: %w", err)
	}
	objs = append(objs, run)
	ref := GateRef(g.phase)
	expect := refs.ExpectAbsent
	if cur, err := r.Refs().Read(ctx, ref); err == nil {
		expect = refs.ExpectValue(cur)
	} else if !errors.Is(err, refs.ErrNotFound) {
		return fmt.Errorf("ref %s: %w", ref, err)
	}
	if err := runs.Commit(ctx, r, ref, expect, g.opt.Actor, objs); err != nil {
		return err
	}
	out.Ref, out.Run = ref, run.ID.String()
	att, err := putAttestation(g, claim, run.ID, events)
	if err != nil {
		return err
	}
	out.Attestation = att.String()
	if attach != nil {
		claim2 := objects.ObjectValue(append(slices.Clone(claim.Object), m("gate_run", objects.String(run.ID.String())))...)
		att2, err := putAttestation(g, claim2, attach.ID, append(slices.Clone(events), run.ID))
		if err != nil {
			return err
		}
		out.AttachedRun, out.AttachedAttestation = attach.ID.String(), att2.String()
	}
	// The catalog is derived: failing to update it now only means the next
	// reader updates it.
	_ = runs.RefreshIndex(ctx, r) // derived data: see refreshIndex
	return nil
}

// claim builds the gate claim of a decision.
func (g *gateEval) claim(out *GateRunResult) objects.Value {
	verdicts := make([]objects.Member, 0, len(out.Results))
	var waived []objects.Member
	for _, res := range out.Results {
		verdicts = append(verdicts, m(res.ID, objects.String(res.Verdict)))
		// The policy must tell a pass from a pass by waiver (issue 10):
		// every waived result is named with its enforcement.
		if res.Waived {
			waived = append(waived, m(res.ID, objects.String(res.Enforcement)))
		}
	}
	decision := GateDecisionBlocked
	if out.Passed {
		decision = GateDecisionPassed
	}
	members := []objects.Member{
		m("kind", objects.String("gate")),
		m("contract", objects.String(out.ContractDigest)),
		m("contract_path", objects.String(out.ContractPath)),
	}
	if out.ContractName != "" {
		members = append(members, m("contract_name", objects.String(out.ContractName)))
	}
	return objects.ObjectValue(append(members,
		m("phase", objects.String(out.Phase)),
		m("decision", objects.String(decision)),
		m("outcome", objects.String(out.Outcome)),
		m("exit_code", objects.Int(int64(out.ExitCode))),
		m("verdicts", objects.ObjectValue(verdicts...)),
		m(gate.ClaimWaived, objects.ObjectValue(waived...)),
		m("root_causes", runs.StringsValue(out.RootCauses)),
	)...)
}

// claimWithout returns claim without key (the run's "gate" member needs
// no kind).
func claimWithout(claim objects.Value, key string) objects.Value {
	out := make([]objects.Member, 0, len(claim.Object))
	for _, mem := range claim.Object {
		if mem.Key != key {
			out = append(out, mem)
		}
	}
	return objects.ObjectValue(out...)
}

// putAttestation stores the gate attestation of claim on target with
// evidence ids, signed when the run was given a key (--key-file), through
// the same builder as tine attest and tine evaluate.
func putAttestation(g *gateEval, claim objects.Value, target objects.OID, evidence []objects.OID) (objects.OID, error) {
	signer := g.opt.Signer
	if signer == "" {
		signer = runs.OrDefault(g.opt.Actor, trust.DefaultSigner)
	}
	ids := make([]objects.Value, len(evidence))
	for i, id := range evidence {
		ids[i] = objects.String(id.String())
	}
	o, _, err := trust.NewAttestation(g.r.Algo(), target, claim, ids, signer, g.key, g.opt.SignWith)
	if err != nil {
		return objects.OID{}, fmt.Errorf("gate attestation: %w", err)
	}
	if _, err := g.r.WriteValidated(g.ctx, []*objects.Object{o}, nil); err != nil {
		return objects.OID{}, fmt.Errorf("gate attestation: %w", err)
	}
	return o.ID, nil
}
