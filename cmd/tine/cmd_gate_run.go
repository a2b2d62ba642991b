package main

import (
	"fmt"
	"strings"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateRunCmd is `tine gate run [--phase P] [--no-cache] [--attach REF]`.
type gateRunCmd struct {
	gateProject
	Phase   string `name:"phase" enum:"change,stop,push,ci" default:"stop" help:"Phase to evaluate: change, stop (default), push or ci."`
	NoCache bool   `name:"no-cache" help:"Read no cached evidence: execute every constraint."`
	Attach  string `name:"attach" placeholder:"REV" help:"Also attach the gate attestation to this run (what tine promote looks for)."`
	signFlags
	jsonFlag
	captureFlag
}

// Help shows an example under `tine gate run --help`.
func (c *gateRunCmd) Help() string {
	return `Evaluates the constraints of the phase in dependency waves. Evidence
whose input digest (contract, checkout, spec, watched files) is unchanged is
reused; a valid human waiver is honoured in change and stop (the
attestation's claim names every waived constraint, and a release policy
refuses a gate passed by waiving a required one unless it allows waivers).
With --key-file the gate attestations are signed (tine-attest/1), as tine
evaluate signs. Progress goes to stderr, the decision to stdout.

Example:

    $ tine gate run
    PASS tests: Command passed
    FAIL coverage: Metric 71.4 does not satisfy gte 80
    BLOCKED (root causes: coverage)`
}

// Run evaluates the gate.
func (c *gateRunCmd) Run(e *env) error {
	sw, err := c.signWith()
	if err != nil {
		return err
	}
	opt := gates.GateRunOptions{Phase: gates.GatePhase(c.Phase), NoCache: c.NoCache, Attach: c.Attach, Signer: c.Signer, SignWith: sw}
	if c.Phase == string(gates.GatePhaseCI) {
		opt = gates.GateRunOptions{CI: true, Attach: c.Attach, Signer: c.Signer, SignWith: sw}
	}
	opt.NoCapture = !c.captureWanted(e)
	return runGate(e, c.gateProject, opt, c.JSON, false)
}

// gateCICmd is `tine gate ci`.
type gateCICmd struct {
	gateProject
	Attach string `name:"attach" placeholder:"REV" help:"Also attach the gate attestation to this run."`
	signFlags
	jsonFlag
	captureFlag
}

// Help shows an example under `tine gate ci --help`.
func (c *gateCICmd) Help() string {
	return `Runs every constraint of the ci phase with no cached evidence and no
waivers: the authoritative decision. Without a repository nothing is
recorded. With --key-file the gate attestations are signed
(tine-attest/1), so a release policy can require the CI key.

Examples:

    $ tine gate ci --attach heads/main
    $ tine gate ci --attach heads/main --signer ci --key-file ci.key`
}

// Run evaluates the ci phase.
func (c *gateCICmd) Run(e *env) error {
	sw, err := c.signWith()
	if err != nil {
		return err
	}
	return runGate(e, c.gateProject, gates.GateRunOptions{CI: true, Attach: c.Attach, Signer: c.Signer, SignWith: sw, NoCapture: !c.captureWanted(e)}, c.JSON, true)
}

// runGate runs the gate, prints progress and the decision, and maps the
// decision to the exit status: a blocked gate is a result, not an error.
func runGate(e *env, pf gateProject, opt gates.GateRunOptions, asJSON, optionalRepo bool) error {
	// Signing or attaching means an attestation is wanted: without a
	// repository that is an error, not a silent unrecorded run.
	r, err := openGateRepo(e, optionalRepo && opt.Attach == "" && opt.KeyFile == "" && opt.Signer == "")
	if err != nil {
		return err
	}
	if r != nil {
		defer r.Close()
	}
	opt.Root = pf.Project
	opt.NoCapture = opt.NoCapture || !(captureFlag{}).captureWanted(e)
	if !asJSON {
		errp := &printer{w: e.stderr}
		opt.Progress = func(p gates.GateProgress) {
			switch p.Stage {
			case gates.GateStageRun:
				errp.printf("RUN %s (%s)\n", p.Constraint, p.Kind)
			case gates.GateStageDone:
				errp.printf("DONE %s: %s (%.1fs)\n", p.Constraint, p.Verdict, p.Duration.Seconds())
			default:
				errp.printf("%s %s: %s\n", strings.ToUpper(p.Stage), p.Constraint, p.Verdict)
			}
		}
	}
	res, err := gates.RunGate(e.ctx, r, opt)
	if err != nil {
		return err
	}
	err = e.emit(asJSON, res, func(p *printer) { printGateRun(p, res, r == nil) })
	if err != nil {
		return err
	}
	if code := gates.GateExitCode(res); code != 0 {
		return &silentError{code: code}
	}
	return nil
}

// printGateRun renders the results and the decision.
func printGateRun(p *printer, res *gates.GateRunResult, unrecorded bool) {
	for _, r := range res.Results {
		word := strings.ToUpper(r.Verdict)
		switch {
		case r.Verdict == gates.GateVerdictPass:
			word = p.good(word)
		case r.Blocks:
			word = p.bad(word)
		}
		extra := ""
		if r.Enforcement == gates.GateAdvisory {
			extra = " (advisory)"
		}
		if r.Reused {
			extra += p.dim(" (cached)")
		}
		p.printf("%s %s: %s%s\n", word, r.ID, r.Message, extra)
	}
	p.printf("%s", res.Outcome)
	if len(res.RootCauses) > 0 {
		p.printf(" (root causes: %s)", strings.Join(res.RootCauses, ", "))
	}
	if res.Waiting {
		p.printf(" (pending: wait, then run again)")
	}
	p.printf("\n")
	switch {
	case res.Run != "":
		p.printf("%s\n", p.dim(fmt.Sprintf("recorded gate run %s on %s, attestation %s", shortOID(res.Run), res.Ref, shortOID(res.Attestation))))
	case unrecorded:
		p.printf("%s\n", p.dim("no repository: nothing recorded"))
	}
	if res.AttachedRun != "" {
		p.printf("attached attestation %s to run %s\n", shortOID(res.AttachedAttestation), shortOID(res.AttachedRun))
	}
}
