package gate

import (
	"fmt"
	"strings"
)

// LoopPromptAdapters are the agent CLIs LoopPrompt writes for.
var LoopPromptAdapters = []string{"claude", "codex", "gemini"}

// adapterShell names each CLI's tool for running a command, so the prompt
// tells the agent what to call in its own words.
var adapterShell = map[string]string{
	"claude": "the Bash tool",
	"codex":  "the shell tool",
	"gemini": "run_shell_command",
}

// LoopPrompt returns the fixed instructions an agent session follows to
// drive the contract's loop (SPEC §6 "Native prompt"): one cycle at a time,
// obeying only next_action, never touching the contract, waivers or
// journal. withChallenge adds the challenge and verify duties of a loop
// with session challenge gates. The text is tine's own.
func LoopPrompt(loop, adapter string, withChallenge bool) (string, error) {
	shell, ok := adapterShell[adapter]
	if !ok {
		return "", fmt.Errorf("unknown adapter %q (want claude, codex or gemini)", adapter)
	}
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("You are working inside the tine convergence loop %q. The loop, not you, decides when the work is done.\n\n", loop)
	p("1. Using %s, run `tine gate cycle %s --json` exactly once and read its JSON.\n", shell, loop)
	p("2. Act on the `next_action` field only, according to `state`:\n")
	p("   - repair: fix only the constraints listed in `blocking_constraints` (and the challenges in `blocking_challenges`), in one repair, then go to step 1.\n")
	p("   - waiting: edit nothing; wait `wake_after_seconds`, then go to step 1.\n")
	if withChallenge {
		p("   - challenge: run `tine gate challenge show %s`, write the requested number of challenges against your own work into a JSON file, submit it with `tine gate challenge submit %s --file FILE`, then go to step 1.\n", loop, loop)
		p("   - verify: check each listed challenge yourself; if checking needs edits, make them and go to step 1 before submitting. Submit the resolutions with `tine gate challenge submit %s --file FILE`, then go to step 1.\n", loop)
	}
	p("   - passed, human_required, budget_exhausted or error: stop and report the state and `next_action` to the user.\n\n")
	p("Rules:\n")
	p("- Never edit the gate contract, and never create a waiver or acknowledgement.\n")
	p("- Never edit, delete or replace anything under .tine/, including the loop journal.\n")
	p("- Make at most one repair per repair state, and no edits at all while waiting.\n")
	p("- After any edit, run one cycle before anything else.\n")
	if withChallenge {
		p("- Do the challenge and verify work yourself, in this session; do not hand it to another agent.\n")
		p("- A challenge is verified only by constraints that pass in the loop's last evaluation; say defect when the work is wrong, rejected when the scenario does not apply, unresolved when you cannot tell.\n")
	}
	return b.String(), nil
}
