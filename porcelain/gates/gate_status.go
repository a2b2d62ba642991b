package gates

import (
	"context"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/plumbing"
)

// Freshness states of gate status.
const (
	GateFresh = "fresh"
	GateStale = "stale"
	// GateMissing: no gate run holds evidence for the constraint at all.
	GateMissing = "missing"
)

// GateStatusOptions configures GateStatus.
type GateStatusOptions struct {
	// Root is the project directory ("" is the current one).
	Root string
	// Phase decides whether waivers count; "" means stop.
	Phase gate.Phase
}

// GateConstraintStatus is one constraint's freshness.
type GateConstraintStatus struct {
	ID          string   `json:"constraint_id"`
	Kind        string   `json:"kind"`
	Enforcement string   `json:"enforcement"`
	Phases      []string `json:"phases"`
	InPhase     bool     `json:"in_phase"`
	// State is fresh, stale or missing.
	State string `json:"state"`
	// Verdict and Message are the fresh evidence's ("" when stale); a
	// valid waiver makes the verdict "waived".
	Verdict string `json:"verdict,omitempty"`
	Message string `json:"message,omitempty"`
	// Reason says why the evidence is stale, or why it is not reused.
	Reason      string `json:"reason,omitempty"`
	InputDigest string `json:"input_digest"`
	Event       string `json:"event,omitempty"`
	// Waiver is the applying waiver's reason.
	Waiver string `json:"waiver,omitempty"`
}

// GateStatusResult is what gate status reports.
type GateStatusResult struct {
	ContractPath   string                  `json:"contract_path"`
	ContractDigest string                  `json:"contract_digest"`
	Phase          string                  `json:"phase"`
	Constraints    []*GateConstraintStatus `json:"constraints"`
}

// GateStatus reports, for every enabled constraint, whether stored evidence
// is fresh for its current inputs. It executes nothing (SPEC §9 status): it
// computes each input digest and looks it up in the cache; stale evidence
// is explained from the newest gate run's event (see GateExplain).
func GateStatus(ctx context.Context, r *plumbing.Repo, opt GateStatusOptions) (*GateStatusResult, error) {
	proj, err := LoadGateProject(opt.Root)
	if err != nil {
		return nil, err
	}
	phase := opt.Phase
	if phase == "" {
		phase = gate.PhaseStop
	}
	if _, err := gate.ParsePhase(string(phase)); err != nil {
		return nil, err
	}
	notes, err := LoadGateAnnotations(ctx, r.Objects(), r.Refs())
	if err != nil {
		return nil, err
	}
	latest, err := latestGateEvidence(ctx, r)
	if err != nil {
		return nil, err
	}
	cache := newGateCache(r)
	out := &GateStatusResult{ContractPath: proj.ContractPath, ContractDigest: proj.Contract.Digest, Phase: string(phase), Constraints: []*GateConstraintStatus{}}
	for _, c := range proj.Contract.Constraints {
		if !c.Enabled {
			continue
		}
		st := &GateConstraintStatus{ID: c.ID, Kind: string(c.Kind), Enforcement: string(c.Enforcement), InPhase: c.InPhase(phase)}
		for _, p := range c.Phases {
			st.Phases = append(st.Phases, string(p))
		}
		in, err := gate.CollectInput(proj.Root, proj.Contract, c, proj.Checkout)
		if err != nil {
			return nil, err
		}
		if st.InputDigest, err = gate.InputDigest(in); err != nil {
			return nil, err
		}
		rec, err := cache.lookup(ctx, c, st.InputDigest)
		if err != nil {
			return nil, err
		}
		if rec == nil || !gate.Fresh(c, rec.Evidence.InputDigest, st.InputDigest) {
			st.State = GateMissing
			if old := latest[c.ID]; old != nil {
				st.State, st.Event = GateStale, old.Event.String()
				st.Reason = staleReason(old, digestParts(in), st.InputDigest)
			} else {
				st.Reason = "no evidence recorded yet"
			}
			out.Constraints = append(out.Constraints, st)
			continue
		}
		st.State, st.Event = GateFresh, rec.Event.String()
		st.Verdict, st.Message = string(rec.Evidence.Verdict), rec.Evidence.Message
		if ok, why := notes.WaiverStatus(phase, proj.Contract, c, rec, st.InputDigest); ok {
			st.Verdict, st.Waiver = string(gate.Waived), why
		} else if why != "" {
			st.Reason = "waiver not applied: " + why
		}
		if _, why := gate.Reusable(phase, c, rec.Evidence, st.InputDigest, gate.ReuseOptions{}); why != "fresh" && st.Reason == "" {
			st.Reason = why
		}
		out.Constraints = append(out.Constraints, st)
	}
	return out, nil
}

// staleReason says which part of the input digest moved since old.
func staleReason(old *GateEvidenceRecord, now gateDigestParts, digest string) string {
	switch {
	case old.Evidence.InputDigest == digest:
		return "evidence is not reusable"
	case old.Contract != now.contract:
		return "the contract changed"
	case old.CheckoutDigest != now.checkout:
		return "the checkout changed (HEAD, branch or worktree)"
	case old.FilesDigest != now.files:
		return "watched files changed"
	}
	return "the constraint's inputs changed (spec or ratchet baseline)"
}

// latestGateEvidence returns, per constraint, the evidence of the newest
// gate run (over every ref under GateRefPrefix) that holds one. Events that
// do not decode are skipped.
func latestGateEvidence(ctx context.Context, r *plumbing.Repo) (map[string]*GateEvidenceRecord, error) {
	out := map[string]*GateEvidenceRecord{}
	runs, err := gateRuns(ctx, r.Objects(), r.Refs())
	if err != nil {
		return nil, err
	}
	for _, run := range runs {
		for _, id := range run.EventIDs() {
			rec, err := DecodeGateEvidence(ctx, r.Objects(), id)
			if err != nil {
				continue
			}
			cur := out[rec.Evidence.ConstraintID]
			if cur == nil || rec.Time > cur.Time {
				out[rec.Evidence.ConstraintID] = rec
			}
		}
	}
	return out, nil
}
