package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// writeTools are the tools that write, each only under experiments/.
func (s *Server) writeTools() []adder {
	return []adder{
		tool(s, "record_event", "Record an event", "Append one event (a JSON object: kind, model or tool, usage, cost, input/output/artifact as text or {\"b64\": ...}) to the run at an experiments/ ref, created if absent. parent_ids defaults to the run's tips. Same as `tine record --event`, without file paths.", addTool, s.recordEvent),
		tool(s, "fork", "Fork a run", "Start a new run at an experiments/ ref from an event of a run, keeping the event's ancestors (shared by oid). Same as `tine fork`.", addTool, s.fork),
		tool(s, "resume", "Resume a run", "Mark the paused, completed or failed run at an experiments/ ref running again. Same as `tine resume`.", addTool, s.resume),
		tool(s, "evaluate", "Evaluate a run", "Store an evaluation attestation (claim {\"kind\":\"evaluation\",\"scores\":{...}}) on a run named by its experiments/ ref. Unsigned; the signer is mcp or mcp:NAME. Same as `tine evaluate`.", addTool, evaluate),
		tool(s, "attest", "Attest a run", "Store an attestation with a JSON claim on a run named by its experiments/ ref. Unsigned; the signer is mcp or mcp:NAME; kinds evaluation and gate are refused (use evaluate; gate attestations come from tine gate run). Same as `tine attest`.", addTool, attest),
	}
}

// recordIn is record_event's input.
type recordIn struct {
	Ref    string `json:"ref" max:"512" jsonschema:"the run's ref, under experiments/"`
	Event  string `json:"event" max:"1048576" jsonschema:"the event as JSON text: one object"`
	Status string `json:"status,omitempty" max:"16" enum:"running|paused|completed|failed" jsonschema:"status of the run after this event (default running)"`
}

// recordEvent is runs.AppendEvent (tine record --event) with no base
// directory, so {"path": ...} blob specs are refused: an agent's event
// never reads a file.
func (s *Server) recordEvent(ctx context.Context, r *plumbing.Repo, in recordIn) (any, error) {
	ref, err := experimentRef(ctx, r, in.Ref)
	if err != nil {
		return nil, err
	}
	return runs.AppendEvent(ctx, r, runs.AppendEventOptions{Ref: ref, Data: []byte(in.Event), Status: in.Status, Now: s.opt.Now, Actor: Actor})
}

// forkIn is fork's input.
type forkIn struct {
	Source string `json:"source" max:"1024" jsonschema:"run to fork: ref, oid, prefix, REF~N or REF@{n}"`
	From   string `json:"from" max:"1024" jsonschema:"event to fork at (oid or prefix), or a run revision meaning its newest event"`
	Ref    string `json:"ref,omitempty" max:"512" jsonschema:"new ref under experiments/ (default experiments/<source>-<event prefix>); must not exist"`
	Reason string `json:"reason,omitempty" max:"1024" jsonschema:"why, recorded in forked_from"`
}

// fork is runs.Fork (tine fork) onto an experiments/ ref.
func (s *Server) fork(ctx context.Context, r *plumbing.Repo, in forkIn) (any, error) {
	ref := in.Ref
	if ref != "" {
		var err error
		if ref, err = experimentRef(ctx, r, ref); err != nil {
			return nil, err
		}
		// Fork writes the run before its compare-and-swap finds the ref
		// taken; asking first keeps a refused call from leaving an
		// unreachable run behind.
		if _, err := r.Refs().Read(ctx, ref); err == nil {
			return nil, fmt.Errorf("%s: %w; name another ref", ref, runs.ErrRefExists)
		}
	}
	// An empty ref makes Fork choose experiments/<source>-<event>.
	return runs.Fork(ctx, r, runs.ForkOptions{Source: in.Source, From: in.From, Ref: ref, Reason: in.Reason, Now: s.opt.Now, Actor: Actor})
}

// resumeIn is resume's input.
type resumeIn struct {
	Ref string `json:"ref" max:"512" jsonschema:"the run's ref, under experiments/"`
}

// resume is runs.Resume (tine resume) on an experiments/ ref.
func (s *Server) resume(ctx context.Context, r *plumbing.Repo, in resumeIn) (any, error) {
	ref, err := experimentRef(ctx, r, in.Ref)
	if err != nil {
		return nil, err
	}
	return runs.Resume(ctx, r, runs.ResumeOptions{Ref: ref, Now: s.opt.Now, Actor: Actor})
}

// evaluateIn is evaluate's input.
type evaluateIn struct {
	Target string  `json:"target" max:"1024" jsonschema:"the run, by its experiments/ ref (REF, REF~N, REF@{n})"`
	Scores []Score `json:"scores" max:"256" jsonschema:"the scores: name and finite number, names unique"`
	Signer string  `json:"signer,omitempty" max:"64" jsonschema:"who evaluates (letters, digits, . _ -); recorded as mcp:SIGNER"`
}

// Score is one named score of an evaluate call.
type Score struct {
	Name  string      `json:"name" max:"128" jsonschema:"score name"`
	Value json.Number `json:"value" max:"64" jsonschema:"a finite number, kept as written: an integer within ±(2^53-1) or a decimal a double holds (at most 17 significant digits); 64 characters at most"`
}

// evaluate is trust.Evaluate (tine evaluate), unsigned, on an
// experiments/ run.
func evaluate(ctx context.Context, r *plumbing.Repo, in evaluateIn) (any, error) {
	if err := experimentRun(ctx, r, in.Target); err != nil {
		return nil, err
	}
	who, err := signer(in.Signer)
	if err != nil {
		return nil, err
	}
	// The decimal text as sent, checked as tine evaluate checks its
	// --score: nothing a double would round is stored rounded.
	scores := make([]trust.Score, len(in.Scores))
	for i, sc := range in.Scores {
		if scores[i], err = trust.NewScore(sc.Name, string(sc.Value)); err != nil {
			return nil, err
		}
	}
	return trust.Evaluate(ctx, r, trust.EvaluateOptions{Target: in.Target, Scores: scores, Signer: who})
}

// attestIn is attest's input.
type attestIn struct {
	Target   string   `json:"target" max:"1024" jsonschema:"the run, by its experiments/ ref (REF, REF~N, REF@{n})"`
	Claim    string   `json:"claim" max:"65536" jsonschema:"the claim as JSON text: one object"`
	Evidence []string `json:"evidence,omitempty" max:"64" jsonschema:"objects the claim rests on (revisions)"`
	Signer   string   `json:"signer,omitempty" max:"64" jsonschema:"who attests (letters, digits, . _ -); recorded as mcp:SIGNER"`
}

// attest is trust.Attest (tine attest), unsigned, on an experiments/ run.
func attest(ctx context.Context, r *plumbing.Repo, in attestIn) (any, error) {
	who, err := signer(in.Signer)
	if err != nil {
		return nil, err
	}
	claim, err := trust.ParseClaim(strings.NewReader(in.Claim), "argument")
	if err != nil {
		return nil, err
	}
	if k, ok := claim.Get("kind"); ok && k.Kind == objects.KindString && (k.Str == "evaluation" || k.Str == "gate") {
		return nil, fmt.Errorf("claim kind %q: %w (use evaluate for scores; gate attestations come from tine gate run)", k.Str, ErrReservedClaim)
	}
	if err := experimentRun(ctx, r, in.Target); err != nil {
		return nil, err
	}
	return trust.Attest(ctx, r, trust.AttestOptions{Target: in.Target, Claim: claim, Evidence: in.Evidence, Signer: who})
}

// signer is the signer an agent's attestation records: mcp, or mcp:NAME,
// so nothing an agent writes can pass for another signer's. NAME is a
// plain word (letters, digits, '.', '_', '-'): a newline, a colon or a
// bidirectional control would make the name read as something else where
// attestations are listed.
func signer(name string) (string, error) {
	if name == "" {
		return Actor, nil
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "", fmt.Errorf("signer %.40q: want letters, digits, '.', '_' and '-' only: %w", name, plumbing.ErrBadInput)
		}
	}
	return Actor + ":" + name, nil
}

// promoteIn is promote's input.
type promoteIn struct {
	Target      string `json:"target" max:"1024" jsonschema:"the run to promote (a revision)"`
	Name        string `json:"name" max:"240" jsonschema:"promotion name: moves promotions/NAME"`
	ExpectedOld string `json:"expected_old,omitempty" max:"1024" jsonschema:"current value of promotions/NAME; omitted or 'absent' means it must not exist yet"`
	Reason      string `json:"reason,omitempty" max:"200" jsonschema:"why, recorded in the reflog"`
}

// promoteTool is promote, registered only with AllowPromotion.
func (s *Server) promoteTool() adder {
	return tool(s, "promote", "Promote a run", "Move promotions/NAME to a run by compare-and-swap once the operator's release policy holds (scores, gate attestations, trusted signers); every unmet requirement is reported. Same as `tine promote`.", releaseTool, s.promote)
}

// promote is trust.Promote (tine promote) under the operator's policy and
// keys; the reflog names mcp as the actor.
func (s *Server) promote(ctx context.Context, r *plumbing.Repo, in promoteIn) (any, error) {
	res, err := trust.Promote(ctx, r, trust.PromoteOptions{
		Target: in.Target, Name: in.Name, ExpectedOld: in.ExpectedOld, Reason: in.Reason,
		PolicyFile: s.opt.PolicyFile, KeyFiles: s.opt.KeyFiles, Actor: Actor,
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
