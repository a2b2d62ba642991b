package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
)

// ChallengeStep is the challenge gate's answer for one cycle whose
// required constraints all pass.
type ChallengeStep struct {
	// State is one of the ChallengeState constants.
	State string
	// Blocking lists the challenges that hold the loop (verify: missing
	// resolutions; repair: defects; human_required: unresolved ones).
	Blocking []string
	// Action is the next_action text for the agent.
	Action string
}

// AdvanceChallenge decides the challenge gate's state for a cycle whose
// required constraints pass (SPEC §6 advance_challenge): discovery first,
// then a resolution of every challenge at the current inputs; an
// unresolved outcome needs a human, a defect needs a repair, and once all
// hold a follow-up round starts if one was asked for and max_rounds
// allows, else the gate passes. Starting a round rotates the request id.
func AdvanceChallenge(loop string, cfg *Challenge, l *ChallengeLedger, newID func() string) ChallengeStep {
	if l.DiscoveryPending {
		return ChallengeStep{State: ChallengeStateChallenge, Blocking: []string{},
			Action: fmt.Sprintf("Required constraints pass. Review your own work: run `tine gate challenge show %s`, write exactly %d challenges for round %d, submit them with `tine gate challenge submit %s --file FILE`, then run one cycle.", loop, cfg.Count, l.Round, loop)}
	}
	var missing, defects, unresolved []string
	for _, c := range l.Challenges {
		r, ok := l.Resolutions[c.ID]
		switch {
		case !ok || r.InputSnapshot != l.InputSnapshot:
			missing = append(missing, c.ID)
		case r.Outcome == OutcomeUnresolved:
			unresolved = append(unresolved, c.ID)
		case r.Outcome == OutcomeDefect:
			defects = append(defects, c.ID)
		}
	}
	switch {
	case len(unresolved) > 0:
		return ChallengeStep{State: ChallengeStateHumanRequired, Blocking: unresolved,
			Action: "A challenge was left unresolved. Require a human decision."}
	case len(defects) > 0:
		return ChallengeStep{State: ChallengeStateRepair, Blocking: defects,
			Action: "Repair only the defects the listed challenges found, then run exactly one new cycle and resolve the challenges again."}
	case len(missing) > 0:
		return ChallengeStep{State: ChallengeStateVerify, Blocking: missing,
			Action: fmt.Sprintf("Resolve the listed challenges at the current inputs (verified, defect, rejected or unresolved) with `tine gate challenge submit %s --file FILE`, then run one cycle.", loop)}
	case l.FollowupNeeded && l.Round < cfg.MaxRounds:
		l.Round++
		l.DiscoveryPending, l.FollowupNeeded, l.RequestID = true, false, newID()
		return ChallengeStep{State: ChallengeStateChallenge, Blocking: []string{},
			Action: fmt.Sprintf("A follow-up review was asked for: run `tine gate challenge show %s`, write exactly %d new challenges for round %d, submit them, then run one cycle.", loop, cfg.Count, l.Round)}
	}
	return ChallengeStep{State: ChallengeStatePassed, Blocking: []string{},
		Action: "Fresh required evidence passes and every challenge is resolved. Stop."}
}

// ChallengeInputDigest names the content of the files the challenge block
// watches (watch and domain_context), framed like a constraint's input
// digest under the pseudo-constraint id "challenge". Any edit to a
// watched file changes it, which voids the resolutions recorded before.
func ChallengeInputDigest(root string, cfg *Challenge) (string, error) {
	globs := slices.Concat(cfg.Watch, cfg.DomainContext)
	paths, err := MatchingFiles(root, globs)
	if err != nil {
		return "", fmt.Errorf("challenge: %w", err)
	}
	spec := sha256.New()
	for _, g := range globs {
		frame(spec, []byte(g))
	}
	in := DigestInput{ConstraintID: "challenge", Spec: []byte(hex.EncodeToString(spec.Sum(nil)))}
	for _, p := range paths {
		sum, err := hashFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			in.Files = append(in.Files, WatchedFile{Path: p, Err: stableError(err)})
			continue
		}
		in.Files = append(in.Files, WatchedFile{Path: p, Present: true, SHA256: sum})
	}
	return InputDigest(in)
}
