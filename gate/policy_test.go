package gate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

const (
	polRun      = "run:sha256:1111111111111111111111111111111111111111111111111111111111111111"
	polContract = "2222222222222222222222222222222222222222222222222222222222222222"
)

// polKey is a real Ed25519 key (the suite's seed 00..1f).
func polKey(t *testing.T) *objects.SigningKey {
	t.Helper()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	k, err := objects.NewEd25519SigningKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// polAtt builds an attestation payload for claim (JSON text) by signer;
// with key it is really signed and verified against verifyWith.
func polAtt(t *testing.T, id, signer, claim string, key *objects.SigningKey, verifyWith []byte) PolicyAttestation {
	t.Helper()
	text := fmt.Sprintf(`{"claim":%s,"evidence_ids":[],"signature":null,"signer":%q,"target_id":%q}`, claim, signer, polRun)
	v, err := objects.ParseJSON([]byte(text), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if key == nil {
		return PolicyAttestation{ID: id, Payload: v, Verdict: objects.VerifyAttestation(v, objects.VerifyOptions{})}
	}
	o, _, err := objects.AttestSign(objects.SHA256, v, objects.AttestSignRequest{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return PolicyAttestation{ID: id, Payload: o.Value, Verdict: objects.VerifyAttestation(o.Value, objects.VerifyOptions{PublicKey: verifyWith})}
}

func f64(f float64) *float64 { return &f }

func polRule(t *testing.T) *PromotionRule {
	k := polKey(t)
	return &PromotionRule{
		Name:        "production",
		TrustedKeys: []TrustedKey{{Name: "ci", Algorithm: objects.AlgEd25519, Fingerprint: objects.KeyFingerprint(k.PublicKey())}},
		Scores:      []ScoreRequirement{{Name: "accuracy", Min: f64(0.9)}, {Name: "latency", Max: f64(200)}},
		Gates:       []GateRequirement{{ContractName: "ci", Phase: "ci"}},
	}
}

func unmetNames(d PromotionDecision) []string {
	var out []string
	for _, u := range d.Unmet() {
		out = append(out, u.Requirement)
	}
	return out
}

func TestDecidePromotionAllMet(t *testing.T) {
	k := polKey(t)
	pub := k.PublicKey()
	rule := polRule(t)
	atts := []PolicyAttestation{
		polAtt(t, "a1", "ci", `{"kind":"evaluation","scores":{"accuracy":0.93,"latency":120}}`, k, pub),
		polAtt(t, "g1", "gatebot", `{"kind":"gate","contract":"`+polContract+`","contract_name":"ci","phase":"ci","decision":"pass","verdicts":{}}`, k, pub),
	}
	d := DecidePromotion(rule, atts)
	if !d.Met || len(d.Requirements) != 3 {
		t.Fatalf("want met with 3 requirements, got %+v", d)
	}
	for _, r := range d.Requirements {
		if r.Attestation == "" {
			t.Errorf("%s met without naming the attestation: %+v", r.Requirement, r)
		}
	}
	// The same gate required by digest also holds.
	rule.Gates = []GateRequirement{{Contract: polContract}}
	if d := DecidePromotion(rule, atts); !d.Met {
		t.Fatalf("gate by digest: %v", unmetNames(d))
	}
}

func TestDecidePromotionListsEveryUnmet(t *testing.T) {
	k := polKey(t)
	pub := k.PublicKey()
	atts := []PolicyAttestation{
		polAtt(t, "low", "ci", `{"kind":"evaluation","scores":{"accuracy":0.5,"latency":900}}`, k, pub),
		polAtt(t, "g-fail", "ci", `{"kind":"gate","contract_name":"ci","phase":"ci","decision":"fail"}`, k, pub),
	}
	d := DecidePromotion(polRule(t), atts)
	got := unmetNames(d)
	want := []string{"score accuracy >= 0.9", "score latency <= 200", `gate "ci" phase ci decision pass`}
	if d.Met || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("unmet = %q, want %q", got, want)
	}
	u := d.Unmet()
	for i, sub := range []string{"0.5 from low: too low (minimum 0.9)", "900 from low: too high (maximum 200)", `g-fail: decision "fail"`} {
		if !strings.Contains(u[i].Reason, sub) {
			t.Errorf("reason %q lacks %q", u[i].Reason, sub)
		}
	}
}

func TestDecidePromotionMissingEvidence(t *testing.T) {
	d := DecidePromotion(polRule(t), nil)
	if d.Met || len(d.Unmet()) != 3 {
		t.Fatalf("want 3 unmet, got %+v", d)
	}
	if r := d.Unmet()[0].Reason; r != "no evaluation of the run scores accuracy" {
		t.Errorf("reason %q", r)
	}
	if r := d.Unmet()[2].Reason; r != "no gate attestation of the run for this contract" {
		t.Errorf("reason %q", r)
	}
	// Another contract's passing gate does not count.
	other := polAtt(t, "g", "ci", `{"kind":"gate","contract_name":"lint","phase":"ci","decision":"pass"}`, polKey(t), polKey(t).PublicKey())
	if d := DecidePromotion(polRule(t), []PolicyAttestation{other}); d.Requirements[2].Met {
		t.Error("a gate of another contract met the requirement")
	}
}

func TestDecidePromotionUntrustedIgnored(t *testing.T) {
	k := polKey(t)
	rule := polRule(t)
	rule.Gates = nil
	rule.Scores = rule.Scores[:1]
	other, err := objects.NewEd25519SigningKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	hk, err := objects.NewHMACSigningKey([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	good := `{"kind":"evaluation","scores":{"accuracy":0.99}}`
	cases := []struct {
		name string
		att  PolicyAttestation
		why  string
	}{
		{"unsigned", polAtt(t, "u", "ci", good, nil, nil), `unsigned, and signer "ci" is not allowed unsigned`},
		{"untrusted key", polAtt(t, "o", "ci", good, other, other.PublicKey()), "which the policy does not trust"},
		{"swapped key", polAtt(t, "s", "ci", good, k, other.PublicKey()), "mismatch"},
		{"no key", polAtt(t, "n", "ci", good, k, nil), "no-key"},
		{"hmac unknown", polAtt(t, "h", "ci", good, hk, nil), "no-key"},
		{"no signer", PolicyAttestation{ID: "x", Payload: mustParse(t, `{"claim":`+good+`,"target_id":"`+polRun+`"}`)}, "names no signer"},
	}
	for _, c := range cases {
		d := DecidePromotion(rule, []PolicyAttestation{c.att})
		if d.Met {
			t.Errorf("%s: an untrusted evaluation met the policy", c.name)
			continue
		}
		if r := d.Unmet()[0].Reason; !strings.Contains(r, c.why) || !strings.Contains(r, "0.99") {
			t.Errorf("%s: reason %q lacks %q", c.name, r, c.why)
		}
	}
	// A signer restriction refuses even a trusted key.
	rule.Signers = []string{"release"}
	if d := DecidePromotion(rule, []PolicyAttestation{polAtt(t, "a", "ci", good, k, k.PublicKey())}); d.Met {
		t.Error("signer restriction ignored")
	}
	// Unsigned counts only for a listed unsigned signer, and never rescues
	// a present signature that fails.
	rule.Signers = nil
	rule.UnsignedSigners = []string{"ci"}
	if d := DecidePromotion(rule, []PolicyAttestation{polAtt(t, "u", "ci", good, nil, nil)}); !d.Met {
		t.Errorf("allowed unsigned signer refused: %v", d.Unmet())
	}
	if d := DecidePromotion(rule, []PolicyAttestation{polAtt(t, "s", "ci", good, k, other.PublicKey())}); d.Met {
		t.Error("a mismatching signature fell back to the unsigned allowance")
	}
	// TOFU is never trust, even when the embedded key is the trusted one.
	a := polAtt(t, "t", "ci", good, k, nil)
	a.Verdict = objects.VerifyAttestation(a.Payload, objects.VerifyOptions{TrustEmbedded: true})
	rule.UnsignedSigners = nil
	if a.Verdict.State != objects.StateVerifiedTOFU {
		t.Fatalf("state %s", a.Verdict.State)
	}
	if d := DecidePromotion(rule, []PolicyAttestation{a}); d.Met {
		t.Error("a TOFU verdict counted as trusted")
	}
}

func TestDecidePromotionFailsClosed(t *testing.T) {
	if d := DecidePromotion(nil, nil); d.Met || d.Unmet()[0].Kind != RequirementPolicy {
		t.Fatalf("nil rule: %+v", d)
	}
	if d := DecidePromotion(&PromotionRule{Name: "empty"}, nil); d.Met {
		t.Fatalf("empty rule met: %+v", d)
	}
	// Scores that are not finite numbers, or not under an evaluation claim,
	// are not scores.
	k := polKey(t)
	rule := &PromotionRule{Name: "p", UnsignedSigners: []string{"ci"}, Scores: []ScoreRequirement{{Name: "s", Min: f64(0), Max: f64(1)}}}
	rule.TrustedKeys = []TrustedKey{{Fingerprint: objects.KeyFingerprint(k.PublicKey())}}
	for _, claim := range []string{`{"kind":"evaluation","scores":{"s":"0.5"}}`, `{"kind":"other","scores":{"s":0.5}}`, `{"kind":"evaluation","scores":[0.5]}`} {
		if d := DecidePromotion(rule, []PolicyAttestation{polAtt(t, "x", "ci", claim, nil, nil)}); d.Met {
			t.Errorf("claim %s met a score requirement", claim)
		}
	}
	if d := DecidePromotion(rule, []PolicyAttestation{polAtt(t, "x", "ci", `{"kind":"evaluation","scores":{"s":1}}`, nil, nil)}); !d.Met {
		t.Errorf("an integer score on the inclusive bound was refused: %v", d.Unmet())
	}
}

func TestRequirementStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{ScoreRequirement{Name: "a", Min: f64(1), Max: f64(2.5)}.String(), "score a in [1, 2.5]"},
		{GateRequirement{Contract: polContract}.String(), "gate contract " + polContract + " decision pass"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func mustParse(t *testing.T, s string) objects.Value {
	t.Helper()
	v, err := objects.ParseJSON([]byte(s), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDecidePromotionWaivedGate checks issue 10 item 6: a gate that passed
// because a required constraint was waived never meets a requirement
// unless the requirement says allow_waived; a waived advisory constraint
// does not matter; an older claim that only says "waived" in its verdicts,
// and a malformed waived member, fail closed.
func TestDecidePromotionWaivedGate(t *testing.T) {
	k := polKey(t)
	pub := k.PublicKey()
	gateOnly := func(req GateRequirement) *PromotionRule {
		r := polRule(t)
		r.Scores, r.Gates = nil, []GateRequirement{req}
		return r
	}
	const head = `{"kind":"gate","contract":"` + polContract + `","contract_name":"ci","phase":"ci","decision":"pass",`
	cases := []struct {
		name, claim string
		met         bool
	}{
		{"clean", head + `"verdicts":{"tests":"pass"},"waived":{}}`, true},
		{"required waived", head + `"verdicts":{"tests":"waived"},"waived":{"tests":"required"}}`, false},
		{"advisory waived", head + `"verdicts":{"tests":"pass","lint":"waived"},"waived":{"lint":"advisory"}}`, true},
		{"older claim", head + `"verdicts":{"tests":"waived"}}`, false},
		{"waived member only", head + `"verdicts":{"tests":"pass"},"waived":{"tests":"required"}}`, false},
		{"unknown enforcement", head + `"verdicts":{"tests":"waived"},"waived":{"tests":7}}`, false},
		{"malformed waived", head + `"verdicts":{"tests":"pass"},"waived":["tests"]}`, false},
	}
	for _, c := range cases {
		att := polAtt(t, "g", "ci", c.claim, k, pub)
		for _, req := range []GateRequirement{{Contract: polContract}, {ContractName: "ci"}} {
			d := DecidePromotion(gateOnly(req), []PolicyAttestation{att})
			if d.Met != c.met {
				t.Errorf("%s, %s: met=%v, want %v (%+v)", c.name, req, d.Met, c.met, d.Requirements)
			}
			if !c.met && !strings.Contains(d.Requirements[0].Reason, "waived, and the policy does not allow waivers (allow_waived)") {
				t.Errorf("%s: reason %q does not name the waiver", c.name, d.Requirements[0].Reason)
			}
			req.AllowWaived = true
			if d := DecidePromotion(gateOnly(req), []PolicyAttestation{att}); !d.Met {
				t.Errorf("%s with allow_waived: unmet %+v", c.name, d.Requirements)
			}
		}
	}
}
