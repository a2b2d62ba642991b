package gates_test

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/gates"
)

func TestProtectedMutation(t *testing.T) {
	names := append(gates.GateProtectedNames(), "perf/baseline.json")
	cases := []struct {
		tool, input string
		deny        bool
	}{
		{"Write", `{"file_path":"/home/u/p/tine-gate.yml","content":"x"}`, true},
		{"Edit", `{"file_path":"constraintloop.yml"}`, true},
		{"write_file", `{"absolute_path":"/p/.tine/refs/heads/gate/stop"}`, true},
		{"replace", `{"file_path":"/p/.claude/settings.local.json"}`, true},
		{"Write", `{"file_path":"perf/baseline.json"}`, true},
		{"Write", `{"file_path":"src/tine-gate.yml.md"}`, false},
		{"Write", `{"file_path":"main.go"}`, false},
		{"Read", `{"file_path":"tine-gate.yml"}`, false},
		{"Bash", `{"command":"echo x > tine-gate.yml"}`, true},
		{"Bash", `{"command":"rm -rf .tine"}`, true},
		{"Bash", `{"command":"go test ./... && sed -i s/a/b/ constraintloop.yaml"}`, true},
		{"Bash", `{"command":"tine gate waive tests --reason ok"}`, true},
		{"Bash", `{"command":"tine --repo x gate uninstall --adapter all"}`, true},
		{"run_shell_command", `{"command":"tine gate baseline update cov --allow-regression"}`, true},
		{"Bash", `{"command":"tine gate baseline update cov"}`, false},
		{"Bash", `{"command":"cat tine-gate.yml"}`, false},
		{"Bash", `{"command":"sed -n 1,20p tine-gate.yml"}`, false},
		{"Bash", `{"command":"go test ./..."}`, false},
		{"shell", `{"command":["bash","-lc","cp evil.yml tine-gate.yml"]}`, true},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Update File: tine-gate.yml\n@@\n-a\n+b\n*** End Patch"}`, true},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Update File: main.go\n*** Move to: .codex/hooks.json\n*** End Patch"}`, true},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Add File: docs/x.md\n+hi\n*** End Patch"}`, false},
	}
	for _, tc := range cases {
		in, err := objects.ParseJSON([]byte(tc.input), objects.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		reason := gates.ProtectedMutation(tc.tool, in, names)
		if (reason != "") != tc.deny {
			t.Errorf("%s %s: reason %q, want deny=%v", tc.tool, tc.input, reason, tc.deny)
		}
	}
}

func TestHookPreToolDeniesPerAdapter(t *testing.T) {
	dir, r := gateProject(t, "")
	write := `{"tool_name":"Write","tool_input":{"file_path":"tine-gate.yml","content":"x"}}`
	for adapter, prefix := range map[string]string{
		"claude": `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"`,
		"codex":  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"`,
		"gemini": `{"decision":"deny","reason":"`,
	} {
		resp, out := hook(t, dir, r, adapter, "pre-tool", write)
		if resp.Intent != gates.HookDeny || !strings.HasPrefix(out, prefix) || !strings.Contains(out, "tine-gate.yml") {
			t.Errorf("%s: %s", adapter, out)
		}
		if _, out := hook(t, dir, r, adapter, "pre-tool", `{"tool_name":"Write","tool_input":{"file_path":"main.go"}}`); out != "{}" {
			t.Errorf("%s allowed write: %s", adapter, out)
		}
	}
}
