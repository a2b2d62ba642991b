package main

import (
	"errors"

	"github.com/tinehq/tine/plumbing"
)

// gateCmd is `tine gate ...`: evidence-based completion gates whose
// evidence lives in the repository (a ConstraintLoop port).
type gateCmd struct {
	Init        gateInitCmd        `cmd:"" help:"Detect Go, Python and Node tooling and write a reviewable contract (tine-gate.yml); installs nothing."`
	Run         gateRunCmd         `cmd:"" help:"Evaluate the contract for a phase, reusing fresh evidence; record a gate run and its attestation."`
	CI          gateCICmd          `cmd:"" name:"ci" help:"Evaluate the ci phase authoritatively: no cached evidence, no waivers."`
	Status      gateStatusCmd      `cmd:"" help:"Say whether each constraint's evidence is fresh or stale, executing nothing."`
	Debug       gateDebugCmd       `cmd:"" help:"Show one constraint's evidence: command, digest inputs, output tail, why it is stale."`
	Doctor      gateDoctorCmd      `cmd:"" help:"Check the contract, the tools it runs and the repository."`
	Waive       gateWaiveCmd       `cmd:"" help:"Waive the exact fresh failing evidence of a deterministic constraint (ignored by ci and push)."`
	Acknowledge gateAcknowledgeCmd `cmd:"" help:"Record why an advisory constraint's fresh non-pass evidence is accepted."`
	Log         gateLogCmd         `cmd:"" help:"List gate runs newest first with their decision."`

	// ---- GATE-HOOKS: add the agent-hook and loop subcommands below this
	// line (setup, uninstall, hook, cycle, supervise), one
	// cmd_gate_<sub>.go file each. ----
	Setup      gateSetupCmd      `cmd:"" help:"Merge tine's hooks into Claude Code, Codex or Gemini CLI project settings, keeping everything else."`
	Uninstall  gateUninstallCmd  `cmd:"" help:"Remove only tine's hooks from the agent CLIs' project settings."`
	Hook       gateHookCmd       `cmd:"" hidden:"" help:"Answer one agent hook call (JSON on stdin, the CLI's JSON on stdout)."`
	Cycle      gateCycleCmd      `cmd:"" help:"Perform one journaled convergence-loop transition under repair, unchanged and duration budgets."`
	Supervise  gateSuperviseCmd  `cmd:"" help:"Poll a waiting loop under a renewable single-writer lease until its state changes."`
	Challenge  gateChallengeCmd  `cmd:"" help:"Show or answer a loop's session challenge request."`
	LoopPrompt gateLoopPromptCmd `cmd:"" name:"loop-prompt" help:"Print the fixed instructions an agent session follows to drive a loop."`
}

// Help explains the gate under `tine gate --help`.
func (c *gateCmd) Help() string {
	return `A gate is a committed contract (tine-gate.yml, or ConstraintLoop's
constraintloop.yml unchanged) of tests, metrics, ratchets, artifacts and
rubric reviews. Each evaluation is recorded: a run under heads/gate/<phase>
with one evidence event per constraint, and an attestation
{"kind":"gate",...} naming the contract, phase, decision and verdicts.

Exit codes of gate run and gate ci: 0 passed, 1 blocked, 2 usage error,
75 blocked only by pending results (wait, then run again).

Example:

    $ tine gate init
    $ tine gate run
    $ tine gate status
    $ tine gate ci --attach heads/main`
}

// gateProject is the --project flag every gate verb takes.
type gateProject struct {
	Project string `name:"project" placeholder:"DIR" default:"." help:"Project directory holding the contract."`
}

// openGateRepo opens the repository; optional verbs get nil when there is
// none.
func openGateRepo(e *env, optional bool) (*plumbing.Repo, error) {
	r, err := e.openRepo()
	if optional && errors.Is(err, plumbing.ErrNotRepository) && e.repoFlag == "" {
		return nil, nil
	}
	return r, err
}
