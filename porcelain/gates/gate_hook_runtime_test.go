package gates_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/gates"
)

// gateProject writes a contract whose "tests" constraint exits with the
// number in the file status, and a tine repository beside it.
func gateProject(t *testing.T, extra string) (string, *plumbing.Repo) {
	t.Helper()
	dir := t.TempDir()
	contract := "version: 1\nsettings: {max_auto_retries: 1}\nconstraints:\n" +
		"  tests:\n    kind: command\n    command: [sh, -c, 'echo checking; exit $(cat status)']\n    phases: [change, stop, ci]\n    watch: [status, src.txt]\n" + extra
	write(t, filepath.Join(dir, "tine-gate.yml"), contract)
	write(t, filepath.Join(dir, "status"), "0")
	r, _, err := plumbing.Init(dir, objects.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dir, r
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hook(t *testing.T, dir string, r *plumbing.Repo, adapter, event, input string) (gates.HookResponse, string) {
	t.Helper()
	resp := gates.GateHook(context.Background(), gates.HookOptions{Adapter: adapter, Event: event, Project: dir, Repo: r,
		Input: strings.NewReader(input), Now: fakeClock(time.Unix(1700000000, 0), time.Second)})
	out := string(resp.Bytes())
	if _, err := objects.ParseJSON([]byte(strings.TrimSpace(out)), objects.ParseOptions{}); err != nil {
		t.Fatalf("%s %s: invalid JSON %q: %v", adapter, event, out, err)
	}
	return resp, strings.TrimSpace(out)
}

func TestHookStopPerAdapter(t *testing.T) {
	want := map[string]struct{ block, allow, human string }{
		"claude": {`{"decision":"block","reason":"[tine gate continuation]\n`, `{"continue":true,"systemMessage":"tine gate stop: PASS`, `{"continue":false,"stopReason":"The continuation budget is exhausted`},
		"codex":  {`{"decision":"block","reason":"[tine gate continuation]\n`, `{"continue":true,"systemMessage":"tine gate stop: PASS`, `{"continue":false,"stopReason":"The continuation budget is exhausted`},
		"gemini": {`{"decision":"deny","reason":"[tine gate continuation]\n`, `{"decision":"allow","systemMessage":"tine gate stop: PASS`, `{"continue":false,"stopReason":"The continuation budget is exhausted`},
	}
	for adapter, w := range want {
		t.Run(adapter, func(t *testing.T) {
			dir, r := gateProject(t, "")
			write(t, filepath.Join(dir, "status"), "1")
			in := `{"session_id":"s1","hook_event_name":"Stop"}`
			resp, out := hook(t, dir, r, adapter, "stop", in)
			if resp.Intent != gates.HookBlock || !strings.HasPrefix(out, w.block) || !strings.Contains(out, "FAIL tests") || !strings.Contains(out, "(1/1 automatic retries)") {
				t.Fatalf("first stop: %s", out)
			}
			resp, out = hook(t, dir, r, adapter, "stop", in)
			if resp.Intent != gates.HookHuman || !strings.HasPrefix(out, w.human) {
				t.Fatalf("second stop: %s", out)
			}
			write(t, filepath.Join(dir, "status"), "0")
			resp, out = hook(t, dir, r, adapter, "stop", in)
			if resp.Intent != gates.HookAllow || !strings.HasPrefix(out, w.allow) {
				t.Fatalf("passing stop: %s", out)
			}
			// Allowing resets the budget: a new failure blocks again.
			write(t, filepath.Join(dir, "status"), "1")
			if resp, out = hook(t, dir, r, adapter, "stop", in); resp.Intent != gates.HookBlock {
				t.Fatalf("after reset: %s", out)
			}
		})
	}
}

func TestHookFailsClosedWithValidJSON(t *testing.T) {
	dir, r := gateProject(t, "")
	for _, adapter := range gates.HookAdapters {
		// Invalid stdin.
		if resp, out := hook(t, dir, r, adapter, "stop", `{"session_id":`); resp.Intent != gates.HookHuman || !strings.Contains(out, "Invalid hook JSON") {
			t.Errorf("%s invalid stdin: %s", adapter, out)
		}
		// Duplicate keys are invalid too (strict reader).
		if resp, _ := hook(t, dir, r, adapter, "stop", `{"a":1,"a":2}`); resp.Intent != gates.HookHuman {
			t.Errorf("%s duplicate keys: %v", adapter, resp.Intent)
		}
		// An unknown event still answers JSON.
		if resp, _ := hook(t, dir, r, adapter, "bogus", `{}`); resp.Intent != gates.HookHuman {
			t.Errorf("%s unknown event: %v", adapter, resp.Intent)
		}
	}
	// A broken contract: stop needs a human, pre-tool still protects.
	write(t, filepath.Join(dir, "tine-gate.yml"), "version: 1\nconstraints:\n  x: {kind: nope}\n")
	if resp, out := hook(t, dir, r, "claude", "stop", `{}`); resp.Intent != gates.HookHuman || !strings.Contains(out, "cannot be loaded") {
		t.Errorf("broken contract stop: %s", out)
	}
	// An internal error (the sessions directory is a file, so the session
	// cannot be stored) is still valid blocking JSON.
	os.MkdirAll(filepath.Join(r.Root(), "gate"), 0o755)
	os.WriteFile(filepath.Join(r.Root(), "gate", "sessions"), []byte("x"), 0o644)
	write(t, filepath.Join(dir, "tine-gate.yml"), "version: 1\nconstraints:\n  t: {kind: command, command: [\"true\"]}\n")
	for _, adapter := range gates.HookAdapters {
		resp, out := hook(t, dir, r, adapter, "stop", `{"session_id":"s"}`)
		if resp.Intent != gates.HookHuman || !strings.Contains(out, "failed closed") {
			t.Errorf("%s internal error: %s", adapter, out)
		}
		resp, out = gates.HookFailClosed(adapter, "pre-tool", "boom"), ""
		if resp.Intent != gates.HookDeny {
			t.Errorf("%s pre-tool fail closed: %v", adapter, resp.Intent)
		}
	}
}

func TestHookLifecycleEvents(t *testing.T) {
	dir, r := gateProject(t, "")
	if _, out := hook(t, dir, r, "claude", "session-start", `{}`); !strings.Contains(out, `"hookEventName":"SessionStart"`) || !strings.Contains(out, "Required gates: tests") {
		t.Errorf("session-start: %s", out)
	}
	if _, out := hook(t, dir, r, "gemini", "post-tool", `{"tool_name":"write_file"}`); !strings.Contains(out, `"hookEventName":"AfterTool"`) || !strings.Contains(out, "tine gate change: PASS") {
		t.Errorf("post-tool: %s", out)
	}
	if _, out := hook(t, dir, r, "codex", "pre-compact", `{}`); !strings.HasPrefix(out, `{"systemMessage":"tine gate remains authoritative`) {
		t.Errorf("pre-compact: %s", out)
	}
	if _, out := hook(t, dir, r, "claude", "user-prompt", `{"session_id":"g","prompt":"make the tests pass"}`); !strings.Contains(out, "captured") {
		t.Errorf("user-prompt: %s", out)
	}
	// Synthetic continuation feedback is not the goal.
	hook(t, dir, r, "claude", "user-prompt", `{"session_id":"g","prompt":"[tine gate continuation]\nFAIL tests"}`)
	raw, err := os.ReadFile(filepath.Join(r.Root(), "gate", "sessions", "g.json"))
	if err != nil || !strings.Contains(string(raw), `"goal": "make the tests pass"`) || !strings.Contains(string(raw), `"last_hook_feedback": "[tine gate continuation]\nFAIL tests"`) {
		t.Errorf("session: %s %v", raw, err)
	}
	// Subagents and background work do not decide completion.
	write(t, filepath.Join(dir, "status"), "1")
	for _, in := range []string{`{"agent_id":"sub"}`, `{"background_tasks":[{"id":1}]}`, `{"sessionCrons":[1]}`} {
		if resp, out := hook(t, dir, r, "claude", "stop", in); resp.Intent != gates.HookNoop || out != "{}" {
			t.Errorf("%s: %s", in, out)
		}
	}
	// A tombstone makes every hook inert.
	if _, err := gates.UninstallHooks(gates.HookSetupOptions{Project: dir, Adapters: []string{"claude"}, StateDir: gates.GateStateDir(r)}); err != nil {
		t.Fatal(err)
	}
	if _, out := hook(t, dir, r, "claude", "stop", `{}`); out != "{}" {
		t.Errorf("tombstoned stop: %s", out)
	}
	if resp, _ := hook(t, dir, r, "codex", "stop", `{}`); resp.Intent != gates.HookBlock {
		t.Errorf("codex is not tombstoned: %v", resp.Intent)
	}
}

func TestHookStopSharesLoopJournal(t *testing.T) {
	dir, r := gateProject(t, "loops:\n  done:\n    phase: stop\n    interval_seconds: 5\n    max_repair_attempts: 2\n    max_unchanged_repairs: 1\n    max_duration_seconds: 3600\n")
	write(t, filepath.Join(dir, "status"), "1")
	resp, out := hook(t, dir, r, "claude", "stop", `{}`)
	if resp.Intent != gates.HookBlock || !strings.Contains(out, "Loop done: repair; repair attempt 0.") {
		t.Fatalf("first: %s", out)
	}
	// The same failure again: the repair changed nothing.
	resp, out = hook(t, dir, r, "claude", "stop", `{}`)
	if resp.Intent != gates.HookHuman || !strings.Contains(out, "Loop done: human_required; repair attempt 1.") {
		t.Fatalf("second: %s", out)
	}
}
