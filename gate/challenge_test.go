package gate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func testChallengeCfg() *Challenge {
	return &Challenge{Count: 3, MaxRounds: 2, MaxContinuations: 8, Watch: []string{"src/**"}, DomainContext: []string{"docs/*.md"}}
}

type idGen struct{ n int }

func (g *idGen) next() string { g.n++; return fmt.Sprintf("req-%d", g.n) }

func item(id, perspective, scenario string) ChallengeItem {
	return ChallengeItem{ID: id, Perspective: perspective, Assumption: "a", Scenario: scenario,
		ExpectedBehavior: "e", VerificationPlan: "v", SourceRefs: []string{"src/a.go"}}
}

func discovery(l *ChallengeLedger, items ...ChallengeItem) *ChallengeSubmission {
	return &ChallengeSubmission{RequestID: l.RequestID, InputSnapshot: l.InputSnapshot, Challenges: items}
}

func threeItems(prefix string) []ChallengeItem {
	return []ChallengeItem{item(prefix+"1", "security", prefix+" scenario one"), item(prefix+"2", "concurrency", prefix+" scenario two"), item(prefix+"3", "input", prefix+" scenario three")}
}

func resolve(l *ChallengeLedger, rs ...Resolution) *ChallengeSubmission {
	return &ChallengeSubmission{RequestID: l.RequestID, InputSnapshot: l.InputSnapshot, Resolutions: rs}
}

func TestChallengeFullRound(t *testing.T) {
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	env := SubmissionEnv{NewID: g.next}
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStateChallenge {
		t.Fatalf("fresh ledger: %s, want challenge", s.State)
	}
	if err := ApplySubmission(cfg, l, discovery(l, threeItems("c")...), env); err != nil {
		t.Fatal(err)
	}
	if l.DiscoveryPending || l.RequestID != "req-2" || len(l.Challenges) != 3 || l.Challenges[0].Round != 1 {
		t.Fatalf("after discovery: %+v", l)
	}
	s := AdvanceChallenge("L", cfg, l, g.next)
	if s.State != ChallengeStateVerify || strings.Join(s.Blocking, ",") != "c1,c2,c3" {
		t.Fatalf("after discovery: %+v, want verify c1,c2,c3", s)
	}
	l.Observe("in1", []string{"tests"}, g.next)
	sub := resolve(l, Resolution{ChallengeID: "c1", Outcome: OutcomeVerified, Evidence: "tests cover it", ConstraintIDs: []string{"tests"}},
		Resolution{ChallengeID: "c2", Outcome: OutcomeRejected, Evidence: "no concurrency here"})
	if err := ApplySubmission(cfg, l, sub, env); err != nil {
		t.Fatal(err)
	}
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStateVerify || strings.Join(s.Blocking, ",") != "c3" {
		t.Fatalf("partial: %+v", s)
	}
	if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: "c3", Outcome: OutcomeRejected, Evidence: "x"}), env); err != nil {
		t.Fatal(err)
	}
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStatePassed {
		t.Fatalf("all resolved: %+v", s)
	}
}

func TestChallengeReplayedRequestRefused(t *testing.T) {
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	sub := discovery(l, threeItems("c")...)
	if err := ApplySubmission(cfg, l, sub, SubmissionEnv{NewID: g.next}); err != nil {
		t.Fatal(err)
	}
	err := ApplySubmission(cfg, l, sub, SubmissionEnv{NewID: g.next})
	if !errors.Is(err, ErrChallenge) || !strings.Contains(err.Error(), "not the current request") {
		t.Fatalf("replay: %v", err)
	}
	// With the current request id the plan still cannot be replaced.
	sub.RequestID = l.RequestID
	if err := ApplySubmission(cfg, l, sub, SubmissionEnv{NewID: g.next}); err == nil || !strings.Contains(err.Error(), "cannot be replaced") {
		t.Fatalf("replacement: %v", err)
	}
}

func TestChallengeInputChangeRotatesAndVoids(t *testing.T) {
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	env := SubmissionEnv{NewID: g.next}
	if err := ApplySubmission(cfg, l, discovery(l, threeItems("c")...), env); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2", "c3"} {
		if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: id, Outcome: OutcomeRejected, Evidence: "x"}), env); err != nil {
			t.Fatal(err)
		}
	}
	old := l.RequestID
	l.Observe("in1", nil, g.next)
	if l.RequestID != old {
		t.Fatal("unchanged inputs rotated the request id")
	}
	stale := resolve(l)
	l.Observe("in2", nil, g.next)
	if l.RequestID == old {
		t.Fatal("changed inputs kept the request id")
	}
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStateVerify || len(s.Blocking) != 3 || l.DiscoveryPending {
		t.Fatalf("after input change: %+v (the plan stays, resolutions are void)", s)
	}
	stale.Resolutions = []Resolution{{ChallengeID: "c1", Outcome: OutcomeRejected, Evidence: "x"}}
	if err := ApplySubmission(cfg, l, stale, env); err == nil {
		t.Fatal("a submission for the old request was accepted")
	}
	stale.RequestID = l.RequestID
	if err := ApplySubmission(cfg, l, stale, env); err == nil || !strings.Contains(err.Error(), "input_snapshot") {
		t.Fatalf("old input snapshot: %v", err)
	}
}

func TestChallengeDefectRepairThenFollowup(t *testing.T) {
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	env := SubmissionEnv{NewID: g.next}
	if err := ApplySubmission(cfg, l, discovery(l, threeItems("c")...), env); err != nil {
		t.Fatal(err)
	}
	if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: "c1", Outcome: OutcomeDefect, Evidence: "it breaks"}), env); err != nil {
		t.Fatal(err)
	}
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStateRepair || strings.Join(s.Blocking, ",") != "c1" {
		t.Fatalf("defect: %+v", s)
	}
	// A defect cannot be overturned at the same inputs.
	err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: "c1", Outcome: OutcomeVerified, Evidence: "fine", ConstraintIDs: []string{"tests"}}), env)
	if err == nil || !strings.Contains(err.Error(), "already resolved") {
		t.Fatalf("overturning a defect: %v", err)
	}
	l.Observe("in2", []string{"tests"}, g.next)
	for _, id := range []string{"c1", "c2", "c3"} {
		if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: id, Outcome: OutcomeVerified, Evidence: "ok", ConstraintIDs: []string{"tests"}}), env); err != nil {
			t.Fatal(err)
		}
	}
	s := AdvanceChallenge("L", cfg, l, g.next)
	if s.State != ChallengeStateChallenge || l.Round != 2 || !l.DiscoveryPending || l.FollowupNeeded {
		t.Fatalf("after the repaired defect: %+v round %d", s, l.Round)
	}
	// Round 2 may not reuse round 1's ids or scenarios.
	err = ApplySubmission(cfg, l, discovery(l, threeItems("c")...), env)
	if err == nil || !strings.Contains(err.Error(), "unique across rounds") {
		t.Fatalf("reused id: %v", err)
	}
	items := threeItems("d")
	items[0].Scenario = "  C SCENARIO   one "
	if err := ApplySubmission(cfg, l, discovery(l, items...), env); err == nil || !strings.Contains(err.Error(), "scenario repeats") {
		t.Fatalf("reused scenario: %v", err)
	}
	if err := ApplySubmission(cfg, l, discovery(l, threeItems("d")...), env); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"d1", "d2", "d3"} {
		if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: id, Outcome: OutcomeRejected, Evidence: "n/a"}), env); err != nil {
			t.Fatal(err)
		}
	}
	// Round 2 added resolutions for d*; c* were resolved at in2 already.
	l.FollowupNeeded = true
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStatePassed {
		t.Fatalf("max_rounds reached: %+v", s)
	}
}

func TestChallengeUnresolvedNeedsHuman(t *testing.T) {
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	env := SubmissionEnv{NewID: g.next}
	if err := ApplySubmission(cfg, l, discovery(l, threeItems("c")...), env); err != nil {
		t.Fatal(err)
	}
	if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: "c2", Outcome: OutcomeUnresolved, Evidence: "cannot tell"}), env); err != nil {
		t.Fatal(err)
	}
	if s := AdvanceChallenge("L", cfg, l, g.next); s.State != ChallengeStateHumanRequired || strings.Join(s.Blocking, ",") != "c2" {
		t.Fatalf("unresolved: %+v", s)
	}
}

func TestChallengeDiscoveryRules(t *testing.T) {
	long := strings.Repeat("x", MaxChallengeText+1)
	cases := []struct {
		name string
		edit func(items []ChallengeItem, s *ChallengeSubmission) []ChallengeItem
		want string
	}{
		{"too few", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem { return it[:2] }, "exactly 3"},
		{"too many", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			return append(it, item("c4", "p", "s4"))
		}, "exactly 3"},
		{"bad id", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem { it[0].ID = "-x"; return it }, "must match"},
		{"long id", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[0].ID = strings.Repeat("a", 81)
			return it
		}, "must match"},
		{"duplicate id", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem { it[1].ID = "c1"; return it }, "id is used"},
		{"duplicate scenario", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[1].Scenario = "C scenario ONE"
			return it
		}, "scenario repeats"},
		{"perspectives", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[1].Perspective, it[2].Perspective = "Security", " security "
			return it
		}, "1 distinct perspectives; at least 3"},
		{"blank", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem { it[0].Assumption = " \n"; return it }, "assumption is blank"},
		{"too long", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[0].VerificationPlan = long
			return it
		}, "8001 characters"},
		{"no refs", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem { it[0].SourceRefs = nil; return it }, "1 to 50"},
		{"many refs", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[0].SourceRefs = make([]string, 51)
			return it
		}, "1 to 50"},
		{"outside ref", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[0].SourceRefs = []string{"other/x.go"}
			return it
		}, "not a project file matched"},
		{"escaping ref", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[0].SourceRefs = []string{"src/../../x"}
			return it
		}, "not a project file matched"},
		{"missing file", func(it []ChallengeItem, _ *ChallengeSubmission) []ChallengeItem {
			it[0].SourceRefs = []string{"src/gone.go"}
			return it
		}, "no such file"},
		{"domain source outside", func(it []ChallengeItem, s *ChallengeSubmission) []ChallengeItem {
			s.DomainBriefs = []DomainBrief{{Topic: "t", Summary: "s", DomainSources: []string{"README.md"}}}
			return it
		}, "domain_sources entry"},
		{"followup in discovery", func(it []ChallengeItem, s *ChallengeSubmission) []ChallengeItem { s.FollowupNeeded = true; return it }, "followup_needed"},
		{"both kinds", func(it []ChallengeItem, s *ChallengeSubmission) []ChallengeItem {
			s.Resolutions = []Resolution{}
			return it
		}, "separately"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, g := testChallengeCfg(), &idGen{}
			l := NewChallengeLedger(g.next(), "in1")
			sub := discovery(l)
			sub.Challenges = tc.edit(threeItems("c"), sub)
			before := l.RequestID
			env := SubmissionEnv{NewID: g.next, SourceOK: func(rel string) error {
				if rel == "src/gone.go" {
					return errors.New("no such file")
				}
				return nil
			}}
			err := ApplySubmission(cfg, l, sub, env)
			if !errors.Is(err, ErrChallenge) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if l.RequestID != before || !l.DiscoveryPending || len(l.Challenges) != 0 {
				t.Fatal("a refused submission changed the ledger")
			}
		})
	}
	// min(count, 3): one challenge needs one perspective.
	cfg, g := testChallengeCfg(), &idGen{}
	cfg.Count = 1
	l := NewChallengeLedger(g.next(), "in1")
	if err := ApplySubmission(cfg, l, discovery(l, item("only", "p", "s")), SubmissionEnv{NewID: g.next}); err != nil {
		t.Fatal(err)
	}
}

func TestChallengeVerificationRules(t *testing.T) {
	cases := []struct {
		name string
		rs   []Resolution
		want string
	}{
		{"empty", []Resolution{}, "resolves no challenge"},
		{"unknown id", []Resolution{{ChallengeID: "zz", Outcome: OutcomeRejected, Evidence: "x"}}, "no such challenge"},
		{"twice", []Resolution{{ChallengeID: "c1", Outcome: OutcomeRejected, Evidence: "x"}, {ChallengeID: "c1", Outcome: OutcomeRejected, Evidence: "y"}}, "resolved twice"},
		{"bad outcome", []Resolution{{ChallengeID: "c1", Outcome: "fine", Evidence: "x"}}, "outcome \"fine\""},
		{"blank evidence", []Resolution{{ChallengeID: "c1", Outcome: OutcomeRejected, Evidence: ""}}, "evidence is blank"},
		{"verified without constraints", []Resolution{{ChallengeID: "c1", Outcome: OutcomeVerified, Evidence: "x"}}, "verified needs constraint_ids"},
		{"verified by a non-passing constraint", []Resolution{{ChallengeID: "c1", Outcome: OutcomeVerified, Evidence: "x", ConstraintIDs: []string{"review"}}}, "constraint \"review\" did not pass"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, g := testChallengeCfg(), &idGen{}
			l := NewChallengeLedger(g.next(), "in1")
			env := SubmissionEnv{NewID: g.next}
			if err := ApplySubmission(cfg, l, discovery(l, threeItems("c")...), env); err != nil {
				t.Fatal(err)
			}
			l.Observe("in1", []string{"tests"}, g.next)
			before := l.RequestID
			err := ApplySubmission(cfg, l, resolve(l, tc.rs...), env)
			if !errors.Is(err, ErrChallenge) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if l.RequestID != before || len(l.Resolutions) != 0 {
				t.Fatal("a refused submission changed the ledger")
			}
		})
	}
	// Resolutions before the discovery plan are refused.
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	if err := ApplySubmission(cfg, l, resolve(l, Resolution{ChallengeID: "c1", Outcome: OutcomeRejected, Evidence: "x"}), SubmissionEnv{NewID: g.next}); err == nil || !strings.Contains(err.Error(), "no challenges yet") {
		t.Fatalf("early resolution: %v", err)
	}
}

func TestParseChallengeSubmission(t *testing.T) {
	for name, raw := range map[string]string{
		"duplicate key": `{"request_id":"a","request_id":"b"}`,
		"unknown key":   `{"request_id":"a","extra":1}`,
		"trailing":      `{"request_id":"a"} {}`,
		"array":         `[]`,
		"too large":     `{"request_id":"` + strings.Repeat("a", MaxSubmissionBytes) + `"}`,
	} {
		if _, err := ParseChallengeSubmission([]byte(raw)); !errors.Is(err, ErrChallenge) {
			t.Errorf("%s: got %v, want ErrChallenge", name, err)
		}
	}
	s, err := ParseChallengeSubmission([]byte(`{"request_id":"r","input_snapshot":"i","challenges":[]}`))
	if err != nil || s.Challenges == nil || s.Resolutions != nil {
		t.Fatalf("valid: %+v %v", s, err)
	}
}

func TestChallengeLedgerValidate(t *testing.T) {
	cfg, g := testChallengeCfg(), &idGen{}
	l := NewChallengeLedger(g.next(), "in1")
	if err := ApplySubmission(cfg, l, discovery(l, threeItems("c")...), SubmissionEnv{NewID: g.next}); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(cfg); err != nil {
		t.Fatal(err)
	}
	bad := *l
	bad.Round = 3
	if bad.Validate(cfg) == nil {
		t.Error("round beyond max_rounds accepted")
	}
	bad = *l
	bad.Resolutions = map[string]RecordedResolution{"ghost": {Outcome: OutcomeVerified, InputSnapshot: "x"}}
	if bad.Validate(cfg) == nil {
		t.Error("a resolution of an unknown challenge accepted")
	}
}
