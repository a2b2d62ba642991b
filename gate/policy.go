package gate

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Release gates (ARCHITECTURE §4: "a promotion is ... allowed only when the
// release policy's requirements hold"). This file is the pure decision: the
// policy model and DecidePromotion. Reading the policy file, loading keys,
// collecting a run's attestations and verifying their signatures happen in
// package porcelain, which hands the verdicts in; nothing here reads files
// or keys, so the rule can be tested on constructed attestations.

// Claim kinds a release policy reads (SPEC §3.5 evaluation; ARCHITECTURE §4
// gate attestation).
const (
	ClaimEvaluation = "evaluation"
	ClaimGate       = "gate"
	// GateDecisionPass is the decision a gate attestation must carry.
	GateDecisionPass = "pass"
	// ClaimWaived is the gate claim member {constraint id: enforcement}
	// naming every constraint whose result the decision read as waived.
	ClaimWaived = "waived"
	// EnforcementAdvisory spells Advisory in a claim.
	EnforcementAdvisory = string(Advisory)
)

// Requirement kinds reported in a PromotionDecision.
const (
	RequirementScore  = "score"
	RequirementGate   = "gate"
	RequirementPolicy = "policy"
)

// maxListed bounds how many attestations one requirement's reason names.
const maxListed = 5

// TrustedKey is a key the policy trusts to sign evaluations and gates.
type TrustedKey struct {
	// Name is the key's name in the policy file.
	Name string `json:"name"`
	// Algorithm is objects.AlgEd25519 or objects.AlgHMACSHA256.
	Algorithm string `json:"algorithm"`
	// Fingerprint is objects.KeyFingerprint of the verifying key: 64
	// lowercase hex digits.
	Fingerprint string `json:"fingerprint"`
	// PublicKeyFile is the Ed25519 public key file, relative to the policy
	// file's directory; "" for HMAC, whose secret is given at promote time.
	PublicKeyFile string `json:"public_key_file,omitempty"`
}

// ScoreRequirement asks for an evaluation score within bounds. At least one
// bound is set; both are inclusive.
type ScoreRequirement struct {
	Name string   `json:"name"`
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
}

// String names the requirement as refusals print it.
func (s ScoreRequirement) String() string {
	switch {
	case s.Min != nil && s.Max != nil:
		return fmt.Sprintf("score %s in [%s, %s]", s.Name, num(*s.Min), num(*s.Max))
	case s.Min != nil:
		return fmt.Sprintf("score %s >= %s", s.Name, num(*s.Min))
	case s.Max != nil:
		return fmt.Sprintf("score %s <= %s", s.Name, num(*s.Max))
	}
	return "score " + s.Name
}

// holds reports whether v is within the bounds.
func (s ScoreRequirement) holds(v float64) bool {
	return (s.Min == nil || v >= *s.Min) && (s.Max == nil || v <= *s.Max)
}

// GateRequirement asks for a passing gate attestation of one contract,
// named by its digest (Contract.Digest, 64 hex) or by the claim's
// contract_name; Phase, when set, must match the claim's phase too.
//
// A gate that passed only because a human waived a required constraint
// does not meet it: a waiver is a local decision (SPEC §4, "CI's
// uncached, waiver-free run is the only hard enforcement"), not evidence.
// AllowWaived, set explicitly in the policy, accepts such a gate.
type GateRequirement struct {
	Contract     string `json:"contract,omitempty"`
	ContractName string `json:"contract_name,omitempty"`
	Phase        string `json:"phase,omitempty"`
	AllowWaived  bool   `json:"allow_waived,omitempty"`
}

// String names the requirement as refusals print it.
func (g GateRequirement) String() string {
	var b strings.Builder
	b.WriteString("gate ")
	if g.Contract != "" {
		b.WriteString("contract " + g.Contract)
	} else {
		b.WriteString(strconv.Quote(g.ContractName))
	}
	if g.Phase != "" {
		b.WriteString(" phase " + g.Phase)
	}
	b.WriteString(" decision pass")
	if g.AllowWaived {
		b.WriteString(" (waivers allowed)")
	}
	return b.String()
}

// PromotionRule is what one promotion name requires.
type PromotionRule struct {
	// Name is the promotion (the ref is promotions/<Name>).
	Name string `json:"name"`
	// TrustedKeys are the keys whose verified signatures count.
	TrustedKeys []TrustedKey `json:"trusted_keys"`
	// Signers, when not empty, restricts signed attestations to these
	// signer names (besides the key check).
	Signers []string `json:"signers,omitempty"`
	// UnsignedSigners are signer names whose unsigned attestations count.
	// Empty (the default) means unsigned attestations never count.
	UnsignedSigners []string `json:"unsigned_signers,omitempty"`
	// Scores and Gates are the requirements; every one must hold.
	Scores []ScoreRequirement `json:"scores,omitempty"`
	Gates  []GateRequirement  `json:"gates,omitempty"`
}

// PolicyAttestation is one attestation of the target run with the verdict
// its signature got against the policy's keys (objects.Verdict; state
// unsigned when it carries none).
type PolicyAttestation struct {
	ID      string
	Payload objects.Value
	Verdict objects.Verdict
}

// RequirementResult is the outcome of one requirement.
type RequirementResult struct {
	Kind        string `json:"kind"`
	Requirement string `json:"requirement"`
	Met         bool   `json:"met"`
	// Attestation is the trusted attestation that met it.
	Attestation string `json:"attestation,omitempty"`
	// Reason says what met it, or every reason it is unmet.
	Reason string `json:"reason"`
}

// PromotionDecision is DecidePromotion's answer.
type PromotionDecision struct {
	Promotion    string              `json:"promotion"`
	Met          bool                `json:"met"`
	Requirements []RequirementResult `json:"requirements"`
}

// Unmet returns the requirements that do not hold, in policy order.
func (d *PromotionDecision) Unmet() []RequirementResult {
	var out []RequirementResult
	for _, r := range d.Requirements {
		if !r.Met {
			out = append(out, r)
		}
	}
	return out
}

// DecidePromotion decides whether rule holds for a run whose attestations
// are atts. It fails closed: a nil rule or one without requirements is
// unmet; an attestation counts only when Trust accepts it. Every
// requirement is evaluated, so a refusal lists every unmet one.
func DecidePromotion(rule *PromotionRule, atts []PolicyAttestation) PromotionDecision {
	if rule == nil {
		return PromotionDecision{Requirements: []RequirementResult{{
			Kind: RequirementPolicy, Requirement: "a policy for the promotion", Reason: "the policy names no such promotion",
		}}}
	}
	d := PromotionDecision{Promotion: rule.Name}
	if len(rule.Scores) == 0 && len(rule.Gates) == 0 {
		d.Requirements = append(d.Requirements, RequirementResult{
			Kind: RequirementPolicy, Requirement: "at least one requirement", Reason: "the promotion's policy requires nothing; refusing to promote unchecked",
		})
	}
	for _, s := range rule.Scores {
		d.Requirements = append(d.Requirements, rule.decideScore(s, atts))
	}
	for _, g := range rule.Gates {
		d.Requirements = append(d.Requirements, rule.decideGate(g, atts))
	}
	d.Met = len(d.Unmet()) == 0
	return d
}

// Trust reports whether attestation a counts under rule, and if not why.
// A signed attestation counts only when its verdict is "verified" (never
// TOFU) by a key whose fingerprint the rule trusts, for the payload's own
// signer, and that signer is allowed; a signature that is present but does
// not verify never falls back to the unsigned allowance. An unsigned one
// counts only when its signer is listed in UnsignedSigners.
func (rule *PromotionRule) Trust(a PolicyAttestation) (bool, string) {
	signer, _ := a.Payload.Get("signer")
	if signer.Kind != objects.KindString || signer.Str == "" {
		return false, "names no signer"
	}
	name := signer.Str
	sig, present := a.Payload.Get("signature")
	if !present || sig.Kind == objects.KindNull {
		if slices.Contains(rule.UnsignedSigners, name) {
			return true, ""
		}
		return false, fmt.Sprintf("unsigned, and signer %q is not allowed unsigned", name)
	}
	v := a.Verdict
	if !v.OK || v.State != objects.StateVerified {
		return false, fmt.Sprintf("signature not verified by a trusted key (%s: %s)", v.State, v.Reason)
	}
	if v.Signer == nil || *v.Signer != name {
		return false, "signature header names another signer"
	}
	trusted := false
	for _, k := range rule.TrustedKeys {
		if k.Fingerprint != "" && k.Fingerprint == v.Fingerprint {
			trusted = true
		}
	}
	if !trusted {
		return false, "signed by key " + short(v.Fingerprint) + ", which the policy does not trust"
	}
	if len(rule.Signers) > 0 && !slices.Contains(rule.Signers, name) {
		return false, fmt.Sprintf("signer %q is not one of the policy's signers", name)
	}
	return true, ""
}

// decideScore checks one score requirement against every evaluation.
func (rule *PromotionRule) decideScore(s ScoreRequirement, atts []PolicyAttestation) RequirementResult {
	res := RequirementResult{Kind: RequirementScore, Requirement: s.String()}
	var why []string
	for _, a := range atts {
		v, ok := scoreOf(a.Payload, s.Name)
		if !ok {
			continue
		}
		trusted, distrust := rule.Trust(a)
		var problems []string
		if !s.holds(v) {
			problems = append(problems, outOfBounds(s, v))
		}
		if !trusted {
			problems = append(problems, distrust)
		}
		if len(problems) == 0 {
			res.Met, res.Attestation = true, a.ID
			res.Reason = fmt.Sprintf("%s from %s", num(v), a.ID)
			return res
		}
		why = append(why, fmt.Sprintf("%s from %s: %s", num(v), a.ID, strings.Join(problems, ", ")))
	}
	if len(why) == 0 {
		res.Reason = "no evaluation of the run scores " + s.Name
		return res
	}
	res.Reason = listed(why)
	return res
}

// decideGate checks one gate requirement against every gate attestation.
func (rule *PromotionRule) decideGate(g GateRequirement, atts []PolicyAttestation) RequirementResult {
	res := RequirementResult{Kind: RequirementGate, Requirement: g.String()}
	var why []string
	for _, a := range atts {
		claim, ok := a.Payload.Get("claim")
		if !ok || claimString(claim, "kind") != ClaimGate || !g.matches(claim) {
			continue
		}
		var problems []string
		if d := claimString(claim, "decision"); d != GateDecisionPass {
			problems = append(problems, fmt.Sprintf("decision %q", d))
		}
		if waived := WaivedRequired(claim); len(waived) > 0 && !g.AllowWaived {
			problems = append(problems, fmt.Sprintf("required constraint %s waived, and the policy does not allow waivers (allow_waived)", strings.Join(waived, ", ")))
		}
		if trusted, distrust := rule.Trust(a); !trusted {
			problems = append(problems, distrust)
		}
		if len(problems) == 0 {
			res.Met, res.Attestation = true, a.ID
			res.Reason = "passed in " + a.ID
			return res
		}
		why = append(why, a.ID+": "+strings.Join(problems, ", "))
	}
	if len(why) == 0 {
		res.Reason = "no gate attestation of the run for this contract"
		return res
	}
	res.Reason = listed(why)
	return res
}

// matches reports whether a gate claim names g's contract (and phase).
func (g GateRequirement) matches(claim objects.Value) bool {
	if g.Contract != "" && claimString(claim, "contract") != g.Contract {
		return false
	}
	if g.ContractName != "" && claimString(claim, "contract_name") != g.ContractName {
		return false
	}
	return g.Phase == "" || claimString(claim, "phase") == g.Phase
}

// scoreOf returns claim.scores[name] of an evaluation attestation when it
// is a finite number (SPEC §3.5: the only evaluation claim shape).
func scoreOf(payload objects.Value, name string) (float64, bool) {
	claim, ok := payload.Get("claim")
	if !ok || claimString(claim, "kind") != ClaimEvaluation {
		return 0, false
	}
	scores, ok := claim.Get("scores")
	if !ok {
		return 0, false
	}
	v, ok := scores.Get(name)
	if !ok {
		return 0, false
	}
	var f float64
	switch {
	case v.Kind == objects.KindInt && v.Big == nil:
		f = float64(v.Int)
	case v.Kind == objects.KindInt:
		f, _ = new(big.Float).SetInt(v.Big).Float64()
	case v.Kind == objects.KindFloat:
		f = v.Float
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// claimString returns a string member of a claim, or "".
func claimString(claim objects.Value, key string) string {
	if v, ok := claim.Get(key); ok && v.Kind == objects.KindString {
		return v.Str
	}
	return ""
}

// outOfBounds says how v misses s's bounds.
func outOfBounds(s ScoreRequirement, v float64) string {
	if s.Min != nil && v < *s.Min {
		return "too low (minimum " + num(*s.Min) + ")"
	}
	return "too high (maximum " + num(*s.Max) + ")"
}

// listed joins reasons, naming at most maxListed of them.
func listed(why []string) string {
	if len(why) <= maxListed {
		return strings.Join(why, "; ")
	}
	return strings.Join(why[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(why)-maxListed)
}

// short abbreviates a fingerprint for a message.
func short(fp string) string {
	if len(fp) > 16 {
		return fp[:16]
	}
	if fp == "" {
		return "(unknown)"
	}
	return fp
}

// num formats a score the shortest way that reads back exactly.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
