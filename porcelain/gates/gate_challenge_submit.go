package gates

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Errors of the challenge verbs.
var (
	// ErrNoChallengeRequest means the loop has no open challenge request:
	// it has no challenge block, no cycle has run yet, or the contract
	// changed since the last one.
	ErrNoChallengeRequest = errors.New("no challenge request")
)

// ChallengeView is one recorded challenge with its resolution, if any;
// Current says the resolution was recorded at the loop's current inputs
// (an older one no longer counts).
type ChallengeView struct {
	gate.RecordedChallenge
	Resolution *gate.RecordedResolution `json:"resolution,omitempty"`
	Current    bool                     `json:"resolution_current"`
}

// ChallengeRequest is what `tine gate challenge show` prints: the open
// request, what it expects next, the recorded challenges and the schema
// of a submission.
type ChallengeRequest struct {
	SchemaVersion         int                `json:"schema_version"`
	Loop                  string             `json:"loop"`
	State                 string             `json:"state"`
	Expect                string             `json:"expect"`
	RequestID             string             `json:"request_id"`
	InputSnapshot         string             `json:"input_snapshot"`
	Round                 int                `json:"round"`
	MaxRounds             int                `json:"max_rounds"`
	Count                 int                `json:"count"`
	Watch                 []string           `json:"watch"`
	DomainContext         []string           `json:"domain_context"`
	VerifiableConstraints []string           `json:"verifiable_constraints"`
	DomainBriefs          []gate.DomainBrief `json:"domain_briefs"`
	Challenges            []ChallengeView    `json:"challenges"`
	SubmissionSchema      json.RawMessage    `json:"submission_schema"`
}

// ChallengeSubmitResult reports an accepted submission.
type ChallengeSubmitResult struct {
	Loop      string `json:"loop"`
	Accepted  string `json:"accepted"`
	Count     int    `json:"count"`
	Round     int    `json:"round"`
	RequestID string `json:"request_id"`
}

// challengeLoop loads the project, its challenge loop name and that
// loop's journal, which must hold a ledger for the current contract.
func challengeLoop(r *plumbing.Repo, name, root string) (*GateProject, *gate.Loop, *loopJournal, error) {
	if err := checkLoopName(name); err != nil {
		return nil, nil, nil, err
	}
	if r == nil {
		return nil, nil, nil, fmt.Errorf("loop %s: a challenge loop needs a tine repository for its journal", name)
	}
	proj, err := LoadGateProject(root)
	if err != nil {
		return nil, nil, nil, err
	}
	var loop *gate.Loop
	for _, l := range proj.Contract.Loops {
		if l.ID == name {
			loop = l
		}
	}
	switch {
	case loop == nil:
		return nil, nil, nil, fmt.Errorf("%w: the contract defines no loop %q", ErrGateLoopName, name)
	case loop.Challenge == nil:
		return nil, nil, nil, fmt.Errorf("loop %s: %w: the loop has no challenge block", name, ErrNoChallengeRequest)
	}
	j, err := loadJournal(GateStateDir(r), name)
	if err != nil {
		return nil, nil, nil, err
	}
	if j == nil || j.ContractDigest != proj.Contract.Digest || j.Challenge == nil {
		return nil, nil, nil, fmt.Errorf("loop %s: %w for the current contract; run tine gate cycle %s first", name, ErrNoChallengeRequest, name)
	}
	if err := checkJournalLedger(j, loop); err != nil {
		return nil, nil, nil, err
	}
	return proj, loop, j, nil
}

// ShowChallenge returns loop name's open challenge request.
func ShowChallenge(r *plumbing.Repo, name, root string) (*ChallengeRequest, error) {
	_, loop, j, err := challengeLoop(r, name, root)
	if err != nil {
		return nil, err
	}
	l, cfg := j.Challenge, loop.Challenge
	out := &ChallengeRequest{SchemaVersion: 1, Loop: name, State: j.PriorState, RequestID: l.RequestID, InputSnapshot: l.InputSnapshot,
		Round: l.Round, MaxRounds: cfg.MaxRounds, Count: cfg.Count, Watch: cfg.Watch, DomainContext: cfg.DomainContext,
		VerifiableConstraints: l.Verifiable, DomainBriefs: l.DomainBriefs, Challenges: []ChallengeView{},
		SubmissionSchema: json.RawMessage(gate.ChallengeSubmissionSchema(cfg))}
	switch {
	case !takesSubmissions(j.PriorState):
		out.Expect = "nothing"
	case l.DiscoveryPending:
		out.Expect = "challenges"
	default:
		out.Expect = "resolutions"
	}
	for _, c := range l.Challenges {
		v := ChallengeView{RecordedChallenge: c}
		if res, ok := l.Resolutions[c.ID]; ok {
			v.Resolution, v.Current = &res, res.InputSnapshot == l.InputSnapshot
		}
		out.Challenges = append(out.Challenges, v)
	}
	return out, nil
}

// takesSubmissions reports the states in which the agent may submit
// (SPEC §6).
func takesSubmissions(state string) bool {
	return state == CycleChallenge || state == CycleVerify || state == CycleRepair
}

// SubmitChallenge validates and records the submission in file (a JSON
// object of at most gate.MaxSubmissionBytes) for loop name under the
// journal's lock; nothing is written unless every rule holds. The next
// cycle decides the state.
func SubmitChallenge(ctx context.Context, r *plumbing.Repo, name, root, file string, now func() time.Time) (*ChallengeSubmitResult, error) {
	if err := checkLoopName(name); err != nil {
		return nil, err
	}
	raw, err := fsutil.ReadFile(file, gate.MaxSubmissionBytes)
	if err != nil {
		return nil, fmt.Errorf("loop %s: read the submission: %w", name, err)
	}
	if r == nil {
		return nil, fmt.Errorf("loop %s: a challenge loop needs a tine repository for its journal", name)
	}
	lock, err := lockLoop(ctx, GateStateDir(r), name)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	proj, loop, j, err := challengeLoop(r, name, root)
	if err != nil {
		return nil, err
	}
	switch {
	case !takesSubmissions(j.PriorState):
		return nil, fmt.Errorf("loop %s is %s: submissions are taken only in the challenge, verify or repair state", name, j.PriorState)
	case epoch(runs.Clock(now)())-j.StartedAt >= loop.MaxDurationSeconds:
		return nil, fmt.Errorf("loop %s: the duration budget is exhausted; no submission is taken", name)
	}
	sub, err := gate.ParseChallengeSubmission(raw)
	if err != nil {
		return nil, fmt.Errorf("loop %s: %w", name, err)
	}
	env := gate.SubmissionEnv{NewID: newRequestID, SourceOK: func(rel string) error { return gate.ChallengeSourceFile(proj.Root, rel) }}
	if err := gate.ApplySubmission(loop.Challenge, j.Challenge, sub, env); err != nil {
		return nil, fmt.Errorf("loop %s: %w", name, err)
	}
	res := &ChallengeSubmitResult{Loop: name, Accepted: "challenges", Count: len(sub.Challenges), Round: j.Challenge.Round, RequestID: j.Challenge.RequestID}
	if sub.Resolutions != nil {
		res.Accepted, res.Count = "resolutions", len(sub.Resolutions)
	}
	return res, saveJournal(GateStateDir(r), j)
}

// LoopPrompt returns the instructions an agent session follows to drive
// the contract's loop name with the given adapter (claude, codex, gemini).
func LoopPrompt(root, name, adapter string) (string, error) {
	if err := checkLoopName(name); err != nil {
		return "", err
	}
	proj, err := LoadGateProject(root)
	if err != nil {
		return "", err
	}
	for _, l := range proj.Contract.Loops {
		if l.ID == name {
			return gate.LoopPrompt(name, adapter, l.Challenge != nil)
		}
	}
	return "", fmt.Errorf("%w: the contract defines no loop %q", ErrGateLoopName, name)
}
