package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
)

// replayCmd is `tine replay RUN --verify | --rerun [--timeout D] [--json]`.
type replayCmd struct {
	Rev        string        `arg:"" name:"run" help:"Run to replay: ref, oid, prefix, REF~N or REF@{n}."`
	Verify     bool          `name:"verify" help:"Re-derive every object of the run from its stored bytes and re-check ids, links, metrics and graph; exit 1 on any drift."`
	Rerun      bool          `name:"rerun" help:"Re-execute the commands tine record captured, in a scratch directory; exit 1 when an exit code or output differs."`
	Timeout    time.Duration `name:"timeout" placeholder:"DURATION" help:"With --rerun: kill a command (and its process group) after this long (default 60s; 0s means the default)."`
	InCheckout bool          `name:"in-recorded-checkout" help:"With --rerun: run each command in a temporary checkout of the code state recorded with it (commit plus dirty patch), taken from the git repository of the current directory."`
	jsonFlag
}

// Help shows examples under `tine replay --help`.
func (c *replayCmd) Help() string {
	return `Exactly one mode is required.

--verify walks the run and everything it links (events, blobs, manifests),
reads each object's stored bytes, decodes them, re-derives the oid under
the repository's hash and re-checks the SPEC's link, metrics and graph
rules. Each object that drifted is one line; exit 0 when none did, 1
otherwise: a CI gate.

--rerun runs again every command event tine record wrote (kind "tool" with
an argv), in order, in one fresh temporary directory (never the recorded
working directory), with empty standard input, and compares the exit code
and the redacted stdout and stderr with the recording. Each command is one
line (same, drift, timeout, not-started) with a short diff of what changed;
exit 1 on any drift.

--rerun --in-recorded-checkout runs each command instead in a temporary
clone of the git repository of the current directory (sharing its objects;
the repository itself is not written to), at the commit recorded with the
command, with its recorded dirty patch applied and in its recorded
subdirectory. Commands recorded in the same state share one checkout. So a
command that reproduces there but drifts in the work tree drifted because
files changed; one that drifts there too drifted by itself. A command with
no recorded state, or whose commit or patch is unavailable, is
"no-checkout". Every checkout is removed afterwards, on failure too.

Examples:

    $ tine replay heads/main --verify
    $ tine replay main~2 --verify --json
    $ tine replay heads/main --rerun --timeout 2m
    $ tine replay heads/main --rerun --in-recorded-checkout`
}

// Run replays the run in the chosen mode.
func (c *replayCmd) Run(e *env) error {
	switch {
	case c.Verify == c.Rerun:
		return usagef("give exactly one of --verify and --rerun")
	case c.Verify && c.Timeout != 0:
		return usagef("--timeout has no effect with --verify")
	case c.Timeout < 0:
		return usagef("--timeout must not be negative (0s means the default, 60s)")
	case c.InCheckout && !c.Rerun:
		return usagef("--in-recorded-checkout needs --rerun")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Verify {
		res, err := runs.VerifyRevision(e.ctx, r, c.Rev)
		if err != nil {
			return err
		}
		if err := e.emit(c.JSON, res, func(p *printer) { printVerify(p, res) }); err != nil {
			return err
		}
		return replayStatus(c.JSON, res.OK, fmt.Sprintf("%d object(s) drifted, listed above", len(res.Drift)))
	}
	res, err := runs.RerunRevision(e.ctx, r, c.Rev, runs.RerunOptions{Timeout: c.Timeout, InRecordedCheckout: c.InCheckout})
	if err != nil {
		return err
	}
	if err := e.emit(c.JSON, res, func(p *printer) { printRerun(p, res) }); err != nil {
		return err
	}
	return replayStatus(c.JSON, res.OK, fmt.Sprintf("%d of %d command(s) did not reproduce, listed above", notReproduced(res), len(res.Events)))
}

// replayStatus turns drift into exit 1; in JSON the object says it all.
func replayStatus(asJSON, ok bool, msg string) error {
	switch {
	case ok:
		return nil
	case asJSON:
		return &silentError{code: exitFailure}
	}
	return fmt.Errorf("%s", msg)
}

// printVerify renders one line per drifted object and a summary.
func printVerify(p *printer, res *runs.VerifyResult) {
	for _, d := range res.Drift {
		line := d.Object + " " + d.Problem
		if d.Reason != "" {
			line += " (" + d.Reason + ")"
		}
		if d.LinkedFrom != "" {
			line += " linked from " + shortOID(d.LinkedFrom)
		}
		p.printf("%s %s: %s\n", p.bad("drift"), line, sanitize(d.Message))
	}
	types := make([]string, 0, len(res.ByType))
	for t := range res.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	var counts []string
	for _, t := range types {
		counts = append(counts, fmt.Sprintf("%d %s", res.ByType[t], t))
	}
	verdict := p.good("ok")
	if !res.OK {
		verdict = p.bad("FAILED")
	}
	extra := ""
	if res.Shallow > 0 {
		extra = fmt.Sprintf(", %d shallow links not followed", res.Shallow)
	}
	p.printf("%s: run %s: %d objects re-derived (%s), %d drifted%s\n", verdict, res.Run, res.Objects, strings.Join(counts, ", "), len(res.Drift), extra)
}

// rerunDiffLines bounds the diff shown per stream of a drifted command.
const rerunDiffLines = 20

// printRerun renders one line per re-executed command and a summary.
func printRerun(p *printer, res *runs.RerunResult) {
	for _, ev := range res.Events {
		status := p.good(ev.Status)
		if ev.Status != runs.RerunSame {
			status = p.bad(ev.Status)
		}
		var what []string
		if ev.ExitDrift {
			what = append(what, fmt.Sprintf("exit code %d -> %d", ev.RecordedExit, ev.ExitCode))
		}
		if ev.StdoutDrift {
			what = append(what, "stdout")
		}
		if ev.StderrDrift {
			what = append(what, "stderr")
		}
		if ev.Message != "" {
			what = append(what, ev.Message)
		}
		detail := ""
		if len(what) > 0 {
			detail = " (" + sanitize(strings.Join(what, ", ")) + ")"
		}
		p.printf("%-8s [%d] %s %s%s\n", status, ev.Position, shortOID(ev.Event), sanitize(clip(strings.Join(ev.Argv, " "), 70)), detail)
		for _, d := range []*runs.TextDiff{ev.Stdout, ev.Stderr} {
			switch {
			case d == nil:
			case d.Binary:
				p.printf("    binary output differs (%d -> %d bytes)\n", d.OldSize, d.NewSize)
			case d.TooLarge:
				p.printf("    output too large to diff (%d -> %d bytes)\n", d.OldSize, d.NewSize)
			default:
				printUnified(p, "    ", d.Unified, rerunDiffLines)
			}
		}
	}
	verdict := p.good("ok")
	if !res.OK {
		verdict = p.bad("FAILED")
	}
	notRun := ""
	if res.NotRun > 0 {
		notRun = fmt.Sprintf(", %d could not be checked out", res.NotRun)
	}
	p.printf("%s: run %s: %d command(s) re-executed%s, %d skipped, %d did not reproduce\n", verdict, res.Run, res.Reran, notRun, res.Skipped, notReproduced(res))
}

// notReproduced counts the commands that drifted, timed out, did not
// start or could not be checked out.
func notReproduced(res *runs.RerunResult) int {
	n := 0
	for _, ev := range res.Events {
		if ev.Status != runs.RerunSame {
			n++
		}
	}
	return n
}
