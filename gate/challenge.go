package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
)

// Session challenge states (SPEC §6 "Session challenge gates"), as
// AdvanceChallenge reports them; the loop maps them to its own states,
// which share these names.
const (
	ChallengeStateChallenge     = "challenge"
	ChallengeStateVerify        = "verify"
	ChallengeStateRepair        = "repair"
	ChallengeStatePassed        = "passed"
	ChallengeStateHumanRequired = "human_required"
)

// Resolution outcomes a verification submission may record.
const (
	OutcomeVerified   = "verified"
	OutcomeDefect     = "defect"
	OutcomeRejected   = "rejected"
	OutcomeUnresolved = "unresolved"
)

// Limits of challenge submissions (SPEC §6): the text of a field, the
// references of a challenge, the bytes of a submission file.
const (
	MaxChallengeText       = 8000
	MaxChallengeSourceRefs = 50
	MaxSubmissionBytes     = 1 << 20
	maxDomainBriefs        = 50
	maxConstraintIDs       = 100
)

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

// challengeIDRE is the spelling of a challenge id (SPEC §6).
var challengeIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$`) })

// ChallengeItem is one adversarial scenario the agent writes about its own
// work: what could be wrong, how it would show, and how to check it.
type ChallengeItem struct {
	ID               string   `json:"id"`
	Perspective      string   `json:"perspective"`
	Assumption       string   `json:"assumption"`
	Scenario         string   `json:"scenario"`
	ExpectedBehavior string   `json:"expected_behavior"`
	VerificationPlan string   `json:"verification_plan"`
	SourceRefs       []string `json:"source_refs"`
}

// RecordedChallenge is a ChallengeItem in the ledger, with the round whose
// discovery plan brought it.
type RecordedChallenge struct {
	ChallengeItem
	Round int `json:"round"`
}

// DomainBrief is a note on the domain the agent read before challenging
// its work, naming the files it came from.
type DomainBrief struct {
	Topic         string   `json:"topic"`
	Summary       string   `json:"summary"`
	DomainSources []string `json:"domain_sources"`
}

// Resolution is a verification submission's answer to one challenge.
type Resolution struct {
	ChallengeID   string   `json:"challenge_id"`
	Outcome       string   `json:"outcome"`
	Evidence      string   `json:"evidence"`
	ConstraintIDs []string `json:"constraint_ids,omitempty"`
}

// RecordedResolution is a Resolution in the ledger, valid only while the
// loop's inputs still have InputSnapshot: any change of the watched
// sources, the constraints' inputs, the goal or the checkout voids it.
type RecordedResolution struct {
	Outcome       string   `json:"outcome"`
	Evidence      string   `json:"evidence"`
	ConstraintIDs []string `json:"constraint_ids"`
	InputSnapshot string   `json:"input_snapshot"`
}

// ChallengeLedger is a challenge loop's state, kept in its journal (SPEC
// §6 ChallengeLedger). RequestID changes after every accepted submission
// and whenever the inputs change, so a submission written for an earlier
// request is refused as a replay. Verifiable is tine's addition: the
// enabled deterministic stop-phase constraints that passed, unwaived, in
// the loop's last evaluation, which is all a "verified" resolution may
// cite.
type ChallengeLedger struct {
	RequestID        string                        `json:"request_id"`
	InputSnapshot    string                        `json:"input_snapshot"`
	Round            int                           `json:"round"`
	DiscoveryPending bool                          `json:"discovery_pending"`
	FollowupNeeded   bool                          `json:"followup_needed"`
	DomainBriefs     []DomainBrief                 `json:"domain_briefs"`
	Challenges       []RecordedChallenge           `json:"challenges"`
	Resolutions      map[string]RecordedResolution `json:"resolutions"`
	Verifiable       []string                      `json:"verifiable_constraints"`
}

// NewChallengeLedger starts round 1 with its discovery pending.
func NewChallengeLedger(requestID, input string) *ChallengeLedger {
	return &ChallengeLedger{RequestID: requestID, InputSnapshot: input, Round: 1, DiscoveryPending: true,
		DomainBriefs: []DomainBrief{}, Challenges: []RecordedChallenge{}, Resolutions: map[string]RecordedResolution{}, Verifiable: []string{}}
}

// Observe records the inputs and verifiable constraints of a new
// evaluation. Changed inputs rotate the request id: a submission prepared
// against the old inputs no longer applies. Resolutions stay, but count
// only at the snapshot they were recorded at.
func (l *ChallengeLedger) Observe(input string, verifiable []string, newID func() string) {
	if input != l.InputSnapshot {
		l.InputSnapshot, l.RequestID = input, newID()
	}
	v := slices.Clone(verifiable)
	slices.Sort(v)
	l.Verifiable = slices.Compact(v)
	if l.Verifiable == nil {
		l.Verifiable = []string{}
	}
}

// Validate checks a ledger read back from a journal; a ledger that breaks
// these rules was not written by tine, and the loop fails closed.
func (l *ChallengeLedger) Validate(cfg *Challenge) error {
	switch {
	case l.RequestID == "" || len(l.RequestID) > 128:
		return errors.New("challenge ledger: bad request_id")
	case l.InputSnapshot == "":
		return errors.New("challenge ledger: empty input_snapshot")
	case l.Round < 1 || l.Round > cfg.MaxRounds:
		return fmt.Errorf("challenge ledger: round %d outside 1..%d", l.Round, cfg.MaxRounds)
	case l.Resolutions == nil || l.Challenges == nil || l.DomainBriefs == nil || l.Verifiable == nil:
		return errors.New("challenge ledger: missing list")
	case len(l.Challenges) > cfg.Count*cfg.MaxRounds:
		return errors.New("challenge ledger: more challenges than the rounds allow")
	}
	seen := map[string]bool{}
	for _, c := range l.Challenges {
		if !challengeIDRE().MatchString(c.ID) || seen[c.ID] || c.Round < 1 || c.Round > l.Round {
			return fmt.Errorf("challenge ledger: bad challenge %q", c.ID)
		}
		seen[c.ID] = true
	}
	for id, r := range l.Resolutions {
		if !seen[id] || !validOutcome(r.Outcome) || r.InputSnapshot == "" {
			return fmt.Errorf("challenge ledger: bad resolution %q", id)
		}
	}
	return nil
}

func validOutcome(s string) bool {
	return s == OutcomeVerified || s == OutcomeDefect || s == OutcomeRejected || s == OutcomeUnresolved
}

// ChallengeSources reports whether rel, a project-relative path, is a file
// the challenge block lets a submission cite: matched by watch or
// domain_context.
func ChallengeSources(cfg *Challenge, rel string) bool {
	if msg := checkRelPath(rel); msg != "" || rel != filepath.ToSlash(filepath.Clean(rel)) {
		return false
	}
	match := func(g string) bool { return MatchGlob(g, rel) }
	return slices.ContainsFunc(cfg.Watch, match) || slices.ContainsFunc(cfg.DomainContext, match)
}

// MarshalJSON keeps nil lists out of the journal (they read back as
// missing and fail Validate).
func (l ChallengeLedger) MarshalJSON() ([]byte, error) {
	type plain ChallengeLedger
	p := plain(l)
	if p.DomainBriefs == nil {
		p.DomainBriefs = []DomainBrief{}
	}
	if p.Challenges == nil {
		p.Challenges = []RecordedChallenge{}
	}
	if p.Resolutions == nil {
		p.Resolutions = map[string]RecordedResolution{}
	}
	if p.Verifiable == nil {
		p.Verifiable = []string{}
	}
	return json.Marshal(p)
}
