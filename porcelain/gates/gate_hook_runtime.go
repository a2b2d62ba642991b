package gates

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// MaxHookInput bounds the JSON an agent CLI sends a hook on stdin; a
// larger payload is refused (fail closed) before it is parsed.
const MaxHookInput = 8 << 20

// HookOptions configures GateHook.
type HookOptions struct {
	Adapter, Event string
	// Project is the project root ("" is the current directory).
	Project string
	// Repo is the tine repository; nil when there is none, in which case
	// nothing is recorded and a blocked stop needs a human.
	Repo *plumbing.Repo
	// Input is the CLI's hook JSON (stdin).
	Input io.Reader
	// Env is the constraints' environment; nil means os.Environ().
	Env []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in reflogs.
	Actor string
}

// hookPayload is the part of the CLI's JSON the hooks read (SPEC §7).
type hookPayload struct {
	session, prompt, tool, agent string
	toolInput                    objects.Value
	background                   bool
}

// GateHook answers one agent hook call in the adapter's JSON (SPEC §7). It
// never returns an error: an unknown adapter or event, invalid input, or any
// internal failure gives the fail-closed answer (a deny on pre-tool, a stop
// for a human elsewhere), which is still valid JSON.
func GateHook(ctx context.Context, opt HookOptions) (resp HookResponse) {
	defer func() {
		if p := recover(); p != nil {
			resp = HookFailClosed(opt.Adapter, opt.Event, fmt.Sprint("internal error: ", p))
		}
	}()
	if _, err := lookupHook(opt.Adapter, opt.Event); err != nil {
		return HookFailClosed(opt.Adapter, opt.Event, err.Error())
	}
	pl, err := readHookPayload(opt.Input)
	if err != nil {
		return hookHumanResponse("Invalid hook JSON: " + err.Error())
	}
	h := &hookCall{opt: opt, pl: pl}
	if opt.Repo != nil {
		h.stateDir = GateStateDir(opt.Repo)
	}
	return h.dispatch(ctx)
}

// readHookPayload reads and strictly parses the hook JSON.
func readHookPayload(in io.Reader) (*hookPayload, error) {
	if in == nil {
		return nil, fmt.Errorf("no input")
	}
	raw, err := io.ReadAll(io.LimitReader(in, MaxHookInput+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxHookInput {
		return nil, fmt.Errorf("more than %d bytes", MaxHookInput)
	}
	doc, err := objects.ParseJSON(raw, objects.ParseOptions{DemoteBigInts: true})
	if err != nil {
		return nil, err
	}
	if doc.Kind != objects.KindObject {
		return nil, fmt.Errorf("not a JSON object")
	}
	first := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := jdString(doc, k); ok && s != "" {
				return s
			}
		}
		return ""
	}
	pl := &hookPayload{session: first("session_id", "sessionId", "conversation_id"), prompt: first("prompt", "user_prompt", "input"),
		tool: first("tool_name", "toolName"), agent: first("agent_id", "agentId"), toolInput: jdObject()}
	if pl.session == "" {
		pl.session = "default"
	}
	for _, k := range []string{"tool_input", "toolInput"} {
		if v, at := jdGet(doc, k); at >= 0 {
			pl.toolInput = v
			break
		}
	}
	for _, k := range []string{"background_tasks", "backgroundTasks", "session_crons", "sessionCrons"} {
		if v, at := jdGet(doc, k); at >= 0 && ((v.Kind == objects.KindArray && len(v.Array) > 0) || (v.Kind == objects.KindObject && len(v.Object) > 0)) {
			pl.background = true
		}
	}
	return pl, nil
}

// hookCall is one hook invocation in progress.
type hookCall struct {
	opt      HookOptions
	pl       *hookPayload
	stateDir string
}

func (h *hookCall) native() string {
	n, _ := NativeHookEvent(h.opt.Adapter, h.opt.Event)
	return n
}

// dispatch follows SPEC §7 Runtime, first matching step wins.
func (h *hookCall) dispatch(ctx context.Context) HookResponse {
	ev := h.opt.Event
	switch {
	case HooksDisabled(h.stateDir, h.opt.Adapter):
		return hookNoop()
	case h.pl.agent != "" && (ev == HookEventPostTool || ev == HookEventStop):
		return hookNoop() // a subagent's turn is not the task's completion
	case ev == HookEventStop && h.pl.background:
		return hookNoop() // defer to an idle main-agent turn
	case ev == HookEventUserPrompt:
		return h.userPrompt()
	case ev == HookEventPreTool:
		return h.preTool()
	}
	proj, err := LoadGateProject(h.opt.Project)
	if err != nil {
		if ev == HookEventStop {
			return hookHumanResponse("The tine gate contract cannot be loaded, so completion cannot be verified: " + err.Error())
		}
		return hookContextResponse(h.native(), "The tine gate contract cannot be loaded: "+err.Error())
	}
	switch ev {
	case HookEventSessionStart:
		var req []string
		for _, c := range proj.Contract.Constraints {
			if c.Enabled && c.Enforcement == gate.Required {
				req = append(req, c.ID)
			}
		}
		return hookContextResponse(h.native(), fmt.Sprintf("tine gate completion contract is active (%s). Required gates: %s. "+
			"Do not edit the contract, the .tine repository or hook settings, and do not create waivers.", proj.ContractPath, strings.Join(req, ", "))+challengeHint(proj.Contract))
	case HookEventPostTool:
		return h.postTool(ctx, proj)
	case HookEventPreCompact:
		return hookNotice("tine gate remains authoritative: completion still needs fresh, passing required evidence from " + proj.ContractPath + ".")
	default:
		return h.stop(ctx, proj)
	}
}

// userPrompt records the human's goal; the gate's own continuation
// feedback is kept apart so it never replaces the goal.
func (h *hookCall) userPrompt() HookResponse {
	if h.stateDir == "" {
		return hookNoop()
	}
	p := h.pl.prompt
	synthetic := strings.HasPrefix(p, HookContinuationPrefix) || strings.HasPrefix(p, "[ConstraintLoop continuation]\n") ||
		(strings.HasPrefix(p, "<hook_prompt") && strings.HasSuffix(strings.TrimSpace(p), "</hook_prompt>"))
	_, err := updateSession(h.stateDir, h.pl.session, func(s *hookSession) {
		if synthetic {
			s.LastFeedback = lastChars(p, maxGoalChars)
		} else if strings.TrimSpace(p) != "" {
			s.Goal = lastChars(p, maxGoalChars)
		}
	})
	if err != nil {
		return HookFailClosed(h.opt.Adapter, h.opt.Event, err.Error())
	}
	return hookContextResponse(h.native(), "tine gate captured the goal for this session's review evidence.")
}

// preTool denies a mutation of a protected name (SPEC §7 protected
// mutation check). The contract is read only for custom baseline files; a
// contract that does not load still leaves every default name protected.
func (h *hookCall) preTool() HookResponse {
	names := GateProtectedNames()
	root, err := absRoot(h.opt.Project)
	if err != nil {
		return HookFailClosed(h.opt.Adapter, h.opt.Event, err.Error())
	}
	if proj, err := LoadGateProject(root); err == nil {
		for _, c := range proj.Contract.Constraints {
			if c.Ratchet != nil && c.Ratchet.BaselineFile != "" {
				names = append(names, filepath.ToSlash(filepath.Clean(c.Ratchet.BaselineFile)))
			}
		}
	}
	if h.opt.Repo != nil {
		if rel, err := filepath.Rel(root, h.opt.Repo.Root()); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
			names = append(names, filepath.ToSlash(rel)+"/")
		}
	}
	if reason := ProtectedMutation(h.pl.tool, h.pl.toolInput, names); reason != "" {
		return hookDenyResponse(h.opt.Adapter, reason)
	}
	return hookNoop()
}

// postTool runs the change phase with cache and waivers and reports it.
func (h *hookCall) postTool(ctx context.Context, proj *GateProject) HookResponse {
	run, err := RunGate(ctx, h.opt.Repo, GateRunOptions{Root: proj.Root, Phase: gate.PhaseChange, Env: h.opt.Env, Now: h.opt.Now, Actor: h.opt.Actor})
	if err != nil {
		return hookContextResponse(h.native(), "tine gate could not evaluate the change phase: "+err.Error())
	}
	if len(run.Results) == 0 {
		return hookNoop()
	}
	return hookContextResponse(h.native(), hookSummary(run, proj.Contract.Settings.HookOutputLimit))
}
