package gates

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// maxDebugFiles bounds the watched paths gate debug lists.
const maxDebugFiles = 50

// GateDebugOptions configures GateDebug.
type GateDebugOptions struct {
	Root  string
	ID    string
	Phase gate.Phase
}

// GateDebugResult explains one constraint's evidence without executing it.
type GateDebugResult struct {
	Status *GateConstraintStatus `json:"status"`
	// Command is the constraint's command (argv, or sh -c script).
	Command []string `json:"command,omitempty"`
	Needs   []string `json:"needs"`
	Watch   []string `json:"watch"`
	// The digest inputs: contract digest, checkout identity, watched files.
	ContractDigest string   `json:"contract_digest"`
	Checkout       string   `json:"checkout"`
	WatchedFiles   int      `json:"watched_files"`
	Files          []string `json:"files"`
	// Evidence describes the newest stored evidence (fresh or stale).
	Evidence *GateEvidenceView `json:"evidence,omitempty"`
}

// GateEvidenceView is stored evidence for display.
type GateEvidenceView struct {
	Event       string   `json:"event"`
	Phase       string   `json:"phase"`
	Verdict     string   `json:"verdict"`
	Message     string   `json:"message"`
	InputDigest string   `json:"input_digest"`
	Category    string   `json:"category,omitempty"`
	ExitCode    *int     `json:"exit_code,omitempty"`
	Value       *float64 `json:"value,omitempty"`
	BlockedBy   []string `json:"blocked_by,omitempty"`
	Attempts    []string `json:"attempts,omitempty"`
	Output      string   `json:"output_tail"`
	DurationMS  int64    `json:"duration_ms"`
}

// GateDebug shows what gate status knows about one constraint plus the
// digest inputs and the newest evidence's output tail (SPEC §9 debug). It
// never executes the constraint or calls an evaluator.
func GateDebug(ctx context.Context, r *plumbing.Repo, opt GateDebugOptions) (*GateDebugResult, error) {
	st, err := GateStatus(ctx, r, GateStatusOptions{Root: opt.Root, Phase: opt.Phase})
	if err != nil {
		return nil, err
	}
	proj, err := LoadGateProject(opt.Root)
	if err != nil {
		return nil, err
	}
	c := proj.Contract.Constraint(opt.ID)
	if c == nil {
		return nil, fmt.Errorf("%w %s in %s", gate.ErrUnknownConstraint, opt.ID, proj.ContractPath)
	}
	out := &GateDebugResult{Needs: nonNil(c.Needs), Watch: c.Watch, ContractDigest: proj.Contract.Digest, Files: []string{}}
	for _, s := range st.Constraints {
		if s.ID == c.ID {
			out.Status = s
		}
	}
	if out.Status == nil {
		return nil, fmt.Errorf("constraint %s is disabled", c.ID)
	}
	if cmd := c.Command; cmd != nil {
		out.Command = cmd.Argv
		if cmd.Script != "" {
			out.Command = []string{"sh", "-c", cmd.Script}
		}
	}
	snap, err := proj.Checkout.Snapshot()
	if err != nil {
		return nil, err
	}
	out.Checkout = string(snap)
	in, err := gate.CollectInput(proj.Root, proj.Contract, c, proj.Checkout)
	if err != nil {
		return nil, err
	}
	out.WatchedFiles = len(in.Files)
	for i, f := range in.Files {
		if i == maxDebugFiles {
			out.Files = append(out.Files, fmt.Sprintf("... %d more", len(in.Files)-i))
			break
		}
		out.Files = append(out.Files, f.Path)
	}
	if out.Status.Event == "" {
		return out, nil
	}
	id, err := objects.ParseOIDFor(r.Algo(), out.Status.Event)
	if err != nil {
		return nil, err
	}
	rec, err := DecodeGateEvidence(ctx, r.Objects(), id)
	if err != nil {
		return nil, err
	}
	out.Evidence = evidenceView(rec)
	return out, nil
}

// evidenceView renders a record for display.
func evidenceView(rec *GateEvidenceRecord) *GateEvidenceView {
	ev := rec.Evidence
	v := &GateEvidenceView{Event: rec.Event.String(), Phase: string(rec.Phase), Verdict: string(ev.Verdict), Message: ev.Message,
		InputDigest: ev.InputDigest, Category: string(ev.Category), ExitCode: ev.ExitCode, Value: ev.Value,
		BlockedBy: ev.BlockedBy, Output: string(ev.Output), DurationMS: ev.Duration.Milliseconds()}
	for _, a := range ev.Attempts {
		line := fmt.Sprintf("attempt %d: ", a.Number)
		switch {
		case a.Error != "":
			line += a.Error
		case a.ExitCode != nil:
			line += fmt.Sprintf("exit code %d", *a.ExitCode)
		default:
			line += "no exit code"
		}
		v.Attempts = append(v.Attempts, line)
	}
	return v
}
