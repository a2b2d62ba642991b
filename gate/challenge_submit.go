package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// ChallengeSubmission is the JSON object `tine gate challenge submit`
// reads. A discovery submission carries challenges (and optionally domain
// briefs); a verification submission carries resolutions (and optionally
// followup_needed). Both name the request and input snapshot they answer.
type ChallengeSubmission struct {
	RequestID      string          `json:"request_id"`
	InputSnapshot  string          `json:"input_snapshot"`
	DomainBriefs   []DomainBrief   `json:"domain_briefs,omitempty"`
	Challenges     []ChallengeItem `json:"challenges,omitempty"`
	Resolutions    []Resolution    `json:"resolutions,omitempty"`
	FollowupNeeded bool            `json:"followup_needed,omitempty"`
}

// ParseChallengeSubmission decodes a submission strictly: at most
// MaxSubmissionBytes, one JSON object, no duplicate or unknown keys, no
// trailing data.
func ParseChallengeSubmission(raw []byte) (*ChallengeSubmission, error) {
	if len(raw) > MaxSubmissionBytes {
		return nil, fmt.Errorf("%w: the submission is larger than %d bytes", ErrChallenge, MaxSubmissionBytes)
	}
	if _, err := objects.ParseJSON(raw, objects.ParseOptions{MaxIntDigits: 32}); err != nil {
		return nil, fmt.Errorf("%w: the submission is not strict JSON: %w", ErrChallenge, err)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%w: the submission must be a JSON object", ErrChallenge)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var s ChallengeSubmission
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrChallenge, err)
	}
	return &s, nil
}

// SubmissionEnv is what ApplySubmission needs from outside the ledger.
type SubmissionEnv struct {
	// SourceOK checks a cited source: a project-relative path naming an
	// existing regular file that ChallengeSources allows; nil means any
	// path ChallengeSources allows.
	SourceOK func(rel string) error
	// NewID returns a fresh request id.
	NewID func() string
}

// ApplySubmission validates sub against the ledger and, only if every
// rule holds, records it and rotates the request id. The caller has
// already checked that the loop is in a state that takes submissions.
func ApplySubmission(cfg *Challenge, l *ChallengeLedger, sub *ChallengeSubmission, env SubmissionEnv) error {
	switch {
	case sub.RequestID != l.RequestID:
		return fmt.Errorf("%w: request_id %q is not the current request (it was answered already, or the inputs changed); run tine gate challenge show for the current one", ErrChallenge, sub.RequestID)
	case sub.InputSnapshot != l.InputSnapshot:
		return fmt.Errorf("%w: input_snapshot does not match the loop's current inputs; run one cycle, then tine gate challenge show", ErrChallenge)
	case sub.Challenges != nil && sub.Resolutions != nil:
		return fmt.Errorf("%w: submit challenges and resolutions separately", ErrChallenge)
	case sub.Challenges != nil:
		if err := checkDiscovery(cfg, l, sub, env); err != nil {
			return err
		}
		for _, c := range sub.Challenges {
			l.Challenges = append(l.Challenges, RecordedChallenge{ChallengeItem: c, Round: l.Round})
		}
		l.DomainBriefs = append(l.DomainBriefs, sub.DomainBriefs...)
		l.DiscoveryPending = false
	case sub.Resolutions != nil:
		if err := checkResolutions(l, sub); err != nil {
			return err
		}
		for _, r := range sub.Resolutions {
			ids := r.ConstraintIDs
			if ids == nil {
				ids = []string{}
			}
			l.Resolutions[r.ChallengeID] = RecordedResolution{Outcome: r.Outcome, Evidence: r.Evidence, ConstraintIDs: ids, InputSnapshot: l.InputSnapshot}
			if r.Outcome == OutcomeDefect {
				// A defect found means the work changed under review:
				// the next round looks at it again.
				l.FollowupNeeded = true
			}
		}
		l.FollowupNeeded = l.FollowupNeeded || sub.FollowupNeeded
	default:
		return fmt.Errorf("%w: the submission has neither challenges nor resolutions", ErrChallenge)
	}
	l.RequestID = env.NewID()
	return nil
}

// checkDiscovery applies the discovery rules of SPEC §6.
func checkDiscovery(cfg *Challenge, l *ChallengeLedger, sub *ChallengeSubmission, env SubmissionEnv) error {
	switch {
	case !l.DiscoveryPending:
		return fmt.Errorf("%w: round %d's challenges are recorded; a discovery plan cannot be replaced", ErrChallenge, l.Round)
	case sub.FollowupNeeded:
		return fmt.Errorf("%w: followup_needed belongs to a verification submission", ErrChallenge)
	case len(sub.Challenges) != cfg.Count:
		return fmt.Errorf("%w: %d challenges submitted; the loop requires exactly %d", ErrChallenge, len(sub.Challenges), cfg.Count)
	case len(sub.DomainBriefs) > maxDomainBriefs:
		return fmt.Errorf("%w: more than %d domain briefs", ErrChallenge, maxDomainBriefs)
	}
	ids, scenarios := map[string]bool{}, map[string]bool{}
	for _, c := range l.Challenges {
		ids[c.ID], scenarios[normalText(c.Scenario)] = true, true
	}
	perspectives := map[string]bool{}
	for i, c := range sub.Challenges {
		where := fmt.Sprintf("challenge %d", i+1)
		if !challengeIDRE().MatchString(c.ID) {
			return fmt.Errorf("%w: %s: id %q must match %s", ErrChallenge, where, c.ID, challengeIDRE())
		}
		where = "challenge " + c.ID
		if ids[c.ID] {
			return fmt.Errorf("%w: %s: the id is used already (ids are unique across rounds)", ErrChallenge, where)
		}
		ids[c.ID] = true
		for _, f := range [][2]string{{"perspective", c.Perspective}, {"assumption", c.Assumption}, {"scenario", c.Scenario},
			{"expected_behavior", c.ExpectedBehavior}, {"verification_plan", c.VerificationPlan}} {
			if err := checkText(where, f[0], f[1]); err != nil {
				return err
			}
		}
		if n := normalText(c.Scenario); scenarios[n] {
			return fmt.Errorf("%w: %s: the scenario repeats an earlier one (scenarios are unique across rounds)", ErrChallenge, where)
		} else {
			scenarios[n] = true
		}
		perspectives[normalText(c.Perspective)] = true
		if err := checkSources(cfg, env, where, "source_refs", c.SourceRefs); err != nil {
			return err
		}
	}
	if want := min(cfg.Count, 3); len(perspectives) < want {
		return fmt.Errorf("%w: %d distinct perspectives; at least %d are required", ErrChallenge, len(perspectives), want)
	}
	for i, b := range sub.DomainBriefs {
		where := fmt.Sprintf("domain brief %d", i+1)
		if err := checkText(where, "topic", b.Topic); err != nil {
			return err
		}
		if err := checkText(where, "summary", b.Summary); err != nil {
			return err
		}
		if err := checkSources(cfg, env, where, "domain_sources", b.DomainSources); err != nil {
			return err
		}
	}
	return nil
}

// checkResolutions applies the verification rules of SPEC §6.
func checkResolutions(l *ChallengeLedger, sub *ChallengeSubmission) error {
	switch {
	case l.DiscoveryPending:
		return fmt.Errorf("%w: round %d has no challenges yet; submit them first", ErrChallenge, l.Round)
	case len(sub.Resolutions) == 0:
		return fmt.Errorf("%w: the submission resolves no challenge", ErrChallenge)
	case len(sub.DomainBriefs) > 0:
		return fmt.Errorf("%w: domain_briefs belong to a discovery submission", ErrChallenge)
	}
	known := map[string]bool{}
	for _, c := range l.Challenges {
		known[c.ID] = true
	}
	seen := map[string]bool{}
	for _, r := range sub.Resolutions {
		where := "resolution of " + fmt.Sprintf("%q", r.ChallengeID)
		switch old, ok := l.Resolutions[r.ChallengeID]; {
		case !known[r.ChallengeID]:
			return fmt.Errorf("%w: %s: no such challenge", ErrChallenge, where)
		case seen[r.ChallengeID]:
			return fmt.Errorf("%w: %s: resolved twice in one submission", ErrChallenge, where)
		case ok && old.InputSnapshot == l.InputSnapshot:
			return fmt.Errorf("%w: %s: already resolved (%s) at these inputs; change the work and run a cycle to resolve it again", ErrChallenge, where, old.Outcome)
		case !validOutcome(r.Outcome):
			return fmt.Errorf("%w: %s: outcome %q (want verified, defect, rejected or unresolved)", ErrChallenge, where, r.Outcome)
		case len(r.ConstraintIDs) > maxConstraintIDs:
			return fmt.Errorf("%w: %s: more than %d constraint_ids", ErrChallenge, where, maxConstraintIDs)
		case r.Outcome == OutcomeVerified && len(r.ConstraintIDs) == 0:
			return fmt.Errorf("%w: %s: verified needs constraint_ids naming passing deterministic stop-phase constraints", ErrChallenge, where)
		}
		seen[r.ChallengeID] = true
		if err := checkText(where, "evidence", r.Evidence); err != nil {
			return err
		}
		if r.Outcome != OutcomeVerified {
			continue
		}
		for _, id := range r.ConstraintIDs {
			if !contains(l.Verifiable, id) {
				return fmt.Errorf("%w: %s: constraint %q did not pass as an enabled deterministic stop-phase constraint in the last evaluation (waived, rubric and failing results prove nothing)", ErrChallenge, where, id)
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkText enforces 1..MaxChallengeText characters of non-blank text.
func checkText(where, field, s string) error {
	switch n := utf8.RuneCountInString(s); {
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: %s: %s is not valid UTF-8", ErrChallenge, where, field)
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%w: %s: %s is blank", ErrChallenge, where, field)
	case n > MaxChallengeText:
		return fmt.Errorf("%w: %s: %s has %d characters (at most %d)", ErrChallenge, where, field, n, MaxChallengeText)
	}
	return nil
}

// checkSources enforces 1..MaxChallengeSourceRefs cited files that the
// challenge block's globs allow and env accepts.
func checkSources(cfg *Challenge, env SubmissionEnv, where, field string, refs []string) error {
	if len(refs) == 0 || len(refs) > MaxChallengeSourceRefs {
		return fmt.Errorf("%w: %s: %s must list 1 to %d files", ErrChallenge, where, field, MaxChallengeSourceRefs)
	}
	for _, ref := range refs {
		if !ChallengeSources(cfg, ref) {
			return fmt.Errorf("%w: %s: %s entry %q is not a project file matched by the challenge's watch or domain_context globs", ErrChallenge, where, field, ref)
		}
		if env.SourceOK != nil {
			if err := env.SourceOK(ref); err != nil {
				return fmt.Errorf("%w: %s: %s entry %q: %w", ErrChallenge, where, field, ref, err)
			}
		}
	}
	return nil
}

// normalText folds case and runs of white space, so two scenarios that
// differ only in spelling of spaces or capitals count as the same.
func normalText(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}
