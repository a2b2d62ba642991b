package gates

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// Errors of the gate verbs. Each is wrapped with the constraint, ref or file
// it concerns; test with errors.Is. Contract, waiver and evidence problems
// use package gate's sentinels (gate.ErrContract, gate.ErrNotWaivable, ...).
var (
	// ErrGateCheckoutChanged means the checkout (HEAD, branch, worktree)
	// moved while constraints ran: the evidence cannot authorize
	// completion (SPEC §2 ensure_checkout_unchanged).
	ErrGateCheckoutChanged = errors.New("checkout changed during evaluation; evidence cannot authorize completion")
	// ErrGateContractExists means gate init found a contract it must not
	// overwrite.
	ErrGateContractExists = errors.New("a gate contract already exists")
	// ErrGateNoTooling means gate init detected no Go, Python or Node
	// project, so it has no check it could honestly propose.
	ErrGateNoTooling = errors.New("no Go, Python or Node tooling detected")
	// ErrGateNoEvidence means no stored evidence exists for a constraint's
	// current inputs (waive, acknowledge, debug need some).
	ErrGateNoEvidence = errors.New("no fresh gate evidence")
)

// GateRefPrefix is where gate runs live: heads/gate/<phase>. Each gate run
// is a new run (not an append): the ref's reflog is the phase's history.
const GateRefPrefix = "heads/gate/"

// GateRef returns the ref of phase p's gate runs.
func GateRef(p gate.Phase) string { return GateRefPrefix + string(p) }

// GateRunOptions configures RunGate.
type GateRunOptions struct {
	// Root is the project directory holding the contract; "" means the
	// current directory.
	Root string
	// Phase is the phase to evaluate; "" means stop. CI forces ci.
	Phase gate.Phase
	// NoCache reads no cached evidence (the run is still recorded).
	NoCache bool
	// Refresh reads no cached evidence either (SPEC §9 run --refresh).
	Refresh bool
	// RefreshPending reruns cached pending results (cycles and hooks).
	RefreshPending bool
	// CI is gate ci: phase ci, no cache reads, no waivers (SPEC §5).
	CI bool
	// Attach names a run (any revision) that also gets the gate
	// attestation, so tine promote finds a passing gate for it.
	Attach string
	// Env is the child environment; nil means os.Environ().
	Env []string
	// Goal is the user's goal for rubric bundles.
	Goal string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in reflogs.
	Actor string
	// Signer names who attests the gate ("" means Actor, else
	// DefaultSigner); SignWith signs the attestations (tine-attest/1) as
	// tine evaluate does, so a policy can require a trusted signer.
	Signer string
	trust.SignWith
	// NoCapture skips recording the code state of the project
	// (runs.CaptureWorkspace) as the gate run's "code" manifest.
	NoCapture bool
	// Progress, when set, is called (serially) as constraints start,
	// are reused or finish; cmd/tine prints it to stderr.
	Progress func(GateProgress)
}

// Progress stages.
const (
	GateStageRun     = "run"
	GateStageReused  = "reused"
	GateStageWaived  = "waived"
	GateStageBlocked = "blocked"
	GateStageDone    = "done"
)

// GateProgress is one progress report of RunGate.
type GateProgress struct {
	Constraint string
	Kind       gate.Kind
	Stage      string
	Verdict    gate.Verdict
	Duration   time.Duration
}

// GateResult is one constraint's outcome in a gate run.
type GateResult struct {
	ID          string   `json:"constraint_id"`
	Kind        string   `json:"kind"`
	Enforcement string   `json:"enforcement"`
	Verdict     string   `json:"verdict"`
	Message     string   `json:"message"`
	InputDigest string   `json:"input_digest"`
	BlockedBy   []string `json:"blocked_by,omitempty"`
	// Event is the evidence event's oid ("" when nothing was recorded).
	Event string `json:"event,omitempty"`
	// Reused says the evidence came from the cache, not a new execution.
	Reused bool `json:"reused"`
	// Waived says a human waiver turned the stored failure into waived
	// for this decision; WaiverReason is the human's reason.
	Waived       bool   `json:"waived"`
	WaiverReason string `json:"waiver_reason,omitempty"`
	Blocks       bool   `json:"blocks"`
	// Evidence is the stored evidence (the original, never the waived
	// copy); Effective is what the decision read.
	Evidence  *gate.Evidence `json:"-"`
	Effective *gate.Evidence `json:"-"`
}

// GateRunResult is what RunGate reports.
type GateRunResult struct {
	Root           string `json:"project_root"`
	ContractPath   string `json:"contract_path"`
	ContractDigest string `json:"contract_digest"`
	// ContractName is the contract's top-level name ("" when it has none).
	ContractName string `json:"contract_name,omitempty"`
	Phase        string `json:"phase"`
	// Passed, Outcome, ExitCode, Blocking, RootCauses, Waiting and
	// Advisories mirror Decision for JSON output.
	Passed     bool     `json:"passed"`
	Outcome    string   `json:"outcome"`
	ExitCode   int      `json:"exit_code"`
	Blocking   []string `json:"blocking"`
	RootCauses []string `json:"root_causes"`
	Waiting    bool     `json:"waiting"`
	Advisories []string `json:"advisories"`
	// Results follow the plan's (topological) order.
	Results []*GateResult `json:"results"`
	// Ref, Run and Attestation name what was recorded ("" when r is nil).
	Ref         string `json:"ref,omitempty"`
	Run         string `json:"run,omitempty"`
	Attestation string `json:"attestation,omitempty"`
	// AttachedRun and AttachedAttestation are set with Attach.
	AttachedRun         string `json:"attached_run,omitempty"`
	AttachedAttestation string `json:"attached_attestation,omitempty"`
	// Decision is the completion decision.
	Decision gate.Decision `json:"-"`
	// Checkout is the checkout identity the evidence was produced in.
	Checkout gate.Checkout `json:"-"`
	// Workspace is the code state the gate ran in (the gate run's "code"
	// manifest); WorkspaceSkipped says why none was captured.
	Workspace        *runs.Workspace `json:"workspace,omitempty"`
	WorkspaceSkipped string          `json:"workspace_skipped,omitempty"`
}

// RunGate evaluates the contract in opt.Root for a phase and, when r is not
// nil, records the gate run: one evidence event per planned constraint
// (reused evidence by oid), a run under GateRef(phase) and an attestation
// {"kind":"gate",...} on it (and on opt.Attach's run). With r nil nothing
// is read from or written to a repository: no cache, no waivers.
//
// A blocked gate is not an error: the decision is in the result. Errors are
// for an invalid contract, a checkout that moved, or a failed write.
func RunGate(ctx context.Context, r *plumbing.Repo, opt GateRunOptions) (*GateRunResult, error) {
	now := runs.Clock(opt.Now)
	phase := opt.Phase
	if opt.CI {
		phase = gate.PhaseCI
	}
	if phase == "" {
		phase = gate.PhaseStop
	}
	if _, err := gate.ParsePhase(string(phase)); err != nil {
		return nil, err
	}
	proj, err := LoadGateProject(opt.Root)
	if err != nil {
		return nil, err
	}
	if r == nil && (opt.KeyFile != "" || opt.Signer != "") {
		return nil, fmt.Errorf("gate: --key-file and --signer need a repository to store the attestation in: %w", plumbing.ErrNotRepository)
	}
	// The key is read before any constraint runs: a bad key file must not
	// cost a whole gate evaluation.
	key, err := opt.SignWith.Load()
	if err != nil {
		return nil, err
	}
	var attach *runs.Run
	if opt.Attach != "" {
		if r == nil {
			return nil, fmt.Errorf("--attach %s: no repository to attach to", opt.Attach)
		}
		if attach, _, err = runs.ResolveRun(ctx, r, opt.Attach); err != nil {
			return nil, fmt.Errorf("--attach %s: %w", opt.Attach, err)
		}
		if !attach.Stored {
			return nil, fmt.Errorf("--attach %s: %w: name a stored run, not REV~N", opt.Attach, runs.ErrNotRun)
		}
	}
	waves, err := gate.Waves(proj.Contract, phase)
	if err != nil {
		return nil, err
	}
	ev := &gateEval{
		ctx: ctx, r: r, proj: proj, phase: phase, opt: opt, now: now,
		engine:    gate.NewEngine(now),
		key:       key,
		effective: map[string]*gate.Evidence{},
	}
	// The code state is read before any constraint can change it.
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	if r != nil && (opt.NoCapture || runs.CaptureOff(env)) {
		ev.code = &runs.WorkspaceCapture{Skipped: "turned off"}
	} else if r != nil {
		ev.code = runs.CaptureWorkspace(ctx, r.Algo(), proj.Root, runs.WorkspaceOptions{Env: env, Redactor: objects.NewEnvRedactor(env)})
	}
	ev.reuse = gate.ReuseOptions{NoCache: opt.NoCache || opt.CI, Refresh: opt.Refresh, RefreshPending: opt.RefreshPending}
	if r != nil && phase.UsesCache() && !ev.reuse.NoCache && !ev.reuse.Refresh {
		ev.cache = newGateCache(r)
	}
	if r != nil && phase.AllowsLocalWaivers() && !opt.CI && ev.cache != nil {
		if ev.notes, err = LoadGateAnnotations(ctx, r.Objects(), r.Refs()); err != nil {
			return nil, err
		}
	}
	for _, wave := range waves {
		if err := ev.runWave(wave); err != nil {
			return nil, err
		}
	}
	after, err := GateCheckout(proj.Root)
	if err != nil {
		return nil, err
	}
	if after != proj.Checkout {
		return nil, ErrGateCheckoutChanged
	}
	return ev.finish(attach)
}

// gateEval is one RunGate evaluation in progress.
type gateEval struct {
	ctx    context.Context
	r      *plumbing.Repo
	proj   *GateProject
	phase  gate.Phase
	opt    GateRunOptions
	now    func() time.Time
	engine *gate.Engine
	reuse  gate.ReuseOptions
	cache  *gateCache
	notes  *GateAnnotations
	key    *objects.SigningKey
	code   *runs.WorkspaceCapture // nil without a repository

	mu        sync.Mutex
	results   []*GateResult
	effective map[string]*gate.Evidence
	prior     []*gate.Evidence
	written   []*gateWrite
}

// progress reports p serially.
func (g *gateEval) progress(p GateProgress) {
	if g.opt.Progress == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opt.Progress(p)
}

// absRoot returns root as an absolute, clean path ("" is the current
// directory).
func absRoot(root string) (string, error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root = wd
	}
	return filepath.Abs(root)
}

// gateWrite is an evidence event to store: the blob it links and itself.
type gateWrite struct {
	blob, event *objects.Object
}
