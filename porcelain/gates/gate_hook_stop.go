package gates

import (
	"context"
	"fmt"
	"strings"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
)

// stop decides whether the agent may finish (SPEC §7 Runtime, stop). With
// a stop-phase loop the hook runs one cycle on the loop's journal, so hooks
// and gate cycle share one budget. Without one the stop phase runs and a
// blocked gate is retried at most max_auto_retries times per session
// before a human is asked. Advisory results that are neither passing nor
// acknowledged take the same bounded path.
func (h *hookCall) stop(ctx context.Context, proj *GateProject) HookResponse {
	if h.opt.Repo == nil {
		return hookHumanResponse("No tine repository holds the gate's evidence and budgets; run tine init, then tine gate run.")
	}
	goal := ""
	if s, err := updateSession(h.stateDir, h.pl.session, func(*hookSession) {}); err == nil {
		goal = s.Goal
	} else {
		return HookFailClosed(h.opt.Adapter, h.opt.Event, err.Error())
	}
	for _, l := range proj.Contract.Loops {
		if l.Phase == gate.PhaseStop {
			return h.stopLoop(ctx, proj, l, goal)
		}
	}
	run, err := RunGate(ctx, h.opt.Repo, GateRunOptions{Root: proj.Root, Phase: gate.PhaseStop, RefreshPending: true,
		Env: h.opt.Env, Goal: goal, Now: h.opt.Now, Actor: h.opt.Actor})
	if err != nil {
		return hookHumanResponse("tine gate could not evaluate completion: " + err.Error())
	}
	limit := proj.Contract.Settings.HookOutputLimit
	summary := hookSummary(run, limit)
	pending := ""
	if !run.Decision.Passed {
		pending = summary
	} else if open := h.openAdvisories(ctx, run); len(open) > 0 {
		pending = summary + "\nAdvisory results need a disposition: fix them, or ask a human to run tine gate acknowledge ID --reason for: " + strings.Join(open, ", ")
	}
	if pending == "" {
		if _, err := updateSession(h.stateDir, h.pl.session, func(s *hookSession) { s.Attempts = 0 }); err != nil {
			return HookFailClosed(h.opt.Adapter, h.opt.Event, err.Error())
		}
		return hookAllowResponse(h.opt.Adapter, summary)
	}
	maxRetries := proj.Contract.Settings.MaxAutoRetries
	s, err := updateSession(h.stateDir, h.pl.session, func(s *hookSession) { s.Attempts++ })
	if err != nil {
		return HookFailClosed(h.opt.Adapter, h.opt.Event, err.Error())
	}
	if s.Attempts <= maxRetries {
		return hookBlockResponse(h.opt.Adapter, fmt.Sprintf("%s\n(%d/%d automatic retries)", pending, s.Attempts, maxRetries))
	}
	return hookHumanResponse("The continuation budget is exhausted; ask a human to review the gate.\n" + pending)
}

// stopLoop runs one continuation cycle of the stop loop.
func (h *hookCall) stopLoop(ctx context.Context, proj *GateProject, l *gate.Loop, goal string) HookResponse {
	res, err := RunCycle(ctx, h.opt.Repo, l.ID, CycleOptions{Root: proj.Root, Goal: goal, Continuation: true,
		Env: h.opt.Env, Now: h.opt.Now, Actor: h.opt.Actor})
	if err != nil {
		return hookHumanResponse(fmt.Sprintf("Loop %s: error. %s", l.ID, CycleErrorResult(l.ID, err).NextAction))
	}
	line := fmt.Sprintf("Loop %s: %s; repair attempt %d. %s", l.ID, res.State, res.RepairAttempt, res.NextAction)
	if len(res.BlockingConstraints) > 0 {
		line += "\nBlocking: " + strings.Join(res.BlockingConstraints, ", ") + " (full output: tine gate debug ID)"
	}
	switch res.State {
	case CyclePassed:
		return hookAllowResponse(h.opt.Adapter, line)
	case CycleRepair, CycleWaiting, CycleChallenge, CycleVerify:
		return hookBlockResponse(h.opt.Adapter, line)
	default:
		return hookHumanResponse(line)
	}
}

// openAdvisories lists advisory results without a passing verdict or an
// acknowledgement of their exact evidence.
func (h *hookCall) openAdvisories(ctx context.Context, run *GateRunResult) []string {
	if len(run.Advisories) == 0 {
		return nil
	}
	notes, err := LoadGateAnnotations(ctx, h.opt.Repo.Objects(), h.opt.Repo.Refs())
	if err != nil {
		return run.Advisories
	}
	var open []string
	for _, id := range run.Advisories {
		settled := false
		for _, g := range run.Results {
			if g.ID != id || g.Evidence == nil {
				continue
			}
			if oid, err := objects.ParseOID(g.Event); err == nil {
				settled = notes.Acknowledgement(&GateEvidenceRecord{Event: oid, Evidence: g.Evidence}) != nil
			}
		}
		if !settled {
			open = append(open, id)
		}
	}
	return open
}

// hookSummary is the compact report a hook shows the agent, at most limit
// bytes: the outcome, each non-passing result with its message, and where
// the full output is.
func hookSummary(run *GateRunResult, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tine gate %s: %s", run.Phase, run.Outcome)
	if len(run.RootCauses) > 0 && !run.Passed {
		fmt.Fprintf(&b, " (repair: %s)", strings.Join(run.RootCauses, ", "))
	}
	for _, g := range run.Results {
		if g.Verdict == string(gate.Pass) || g.Verdict == string(gate.Skipped) {
			continue
		}
		fmt.Fprintf(&b, "\n%s %s: %s", strings.ToUpper(g.Verdict), g.ID, g.Message)
		if g.Evidence != nil && g.Verdict != string(gate.Waived) {
			if line := failureLine(g.Evidence.Output); line != "" {
				fmt.Fprintf(&b, "\n  %s", line)
			}
			fmt.Fprintf(&b, "\n  full output: tine gate debug %s", g.ID)
		}
	}
	s := redactText(b.String())
	if limit > 0 && len(s) > limit {
		cut := limit
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// failureLine picks the most telling line of an output tail: a failing test
// or error line, else the last non-blank line.
func failureLine(out []byte) string {
	lines := strings.Split(strings.ToValidUTF8(string(out), "\uFFFD"), "\n")
	last := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "FAIL") || strings.HasPrefix(t, "FAILED ") ||
			strings.HasPrefix(t, "ERROR ") || strings.HasPrefix(t, "E  ") || strings.Contains(t, "Error: ") {
			return t
		}
		last = t
	}
	return last
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
