package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/tinehq/tine/plumbing"
)

// fsckCmd is `tine fsck`.
type fsckCmd struct {
	RemoveStale bool `name:"remove-stale" help:"Delete crash leftovers: ref guards, staging files and journals of dead tine writers whatever their age (a live writer's are never touched), and temp files and foreign ref guards older than --stale-after."`
	// StaleAfter is a pointer so that an absent flag (the 1h default) is
	// told apart from --stale-after 0s (any age).
	StaleAfter *time.Duration `name:"stale-after" placeholder:"DURATION" help:"Minimum age of a leftover whose writer cannot be probed (temp files, foreign ref guards) that --remove-stale deletes (default 1h; 0s deletes them whatever their age, once running writers have finished)."`
	jsonFlag
}

// Help shows an example under `tine fsck --help`.
func (c *fsckCmd) Help() string {
	return `Re-hashes every object and checks its links, metrics, run graph and
annotation chain, the event DAG, every ref, reflog, the shallow file and
pack names; every storage pack is verified entry by entry, and loose and
packed copies of one object are both checked. Each problem is one line; any problem exits 1. Warnings (crash
leftovers) do not fail the check.

Example:

    $ tine fsck
    ok: 4 objects, 1 refs, 0 problems, 0 warnings`
}

// fsckGCPercent is the garbage collector's target during fsck. fsck keeps
// little (every event decoded, each run as numbers: 22 MiB live for a
// 1,000-iteration loop's repository) and makes much garbage (each run is
// decoded, and its graph checked, once), so at Go's default of 100 the
// collector ran 69 times in that fsck; at 200 it runs 34 times, for about
// 0.4 s less CPU and a peak of about 117 MiB instead of 88.
const fsckGCPercent = 200

// Run checks the repository.
func (c *fsckCmd) Run(e *env) error {
	defer raiseGC(fsckGCPercent)()
	if c.StaleAfter != nil && !c.RemoveStale {
		return usagef("--stale-after has no effect without --remove-stale")
	}
	staleAfter := plumbing.DefaultStaleAfter
	if c.StaleAfter != nil {
		if *c.StaleAfter < 0 {
			return usagef("--stale-after must not be negative (0s removes leftovers of any age)")
		}
		staleAfter = *c.StaleAfter
	}
	r, err := e.openRepoDamagedPacks()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Fsck(e.ctx, r, plumbing.FsckOptions{RemoveStale: c.RemoveStale, StaleAfter: staleAfter, Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return err
	}
	if err := e.emit(c.JSON, res, func(p *printer) { printFsck(p, res) }); err != nil {
		return err
	}
	return fsckStatus(c.JSON, res)
}

// fsckStatus turns problems into exit 1. In JSON the object already says
// everything, so no error line follows it.
func fsckStatus(asJSON bool, res *plumbing.FsckResult) error {
	switch {
	case res.OK():
		return nil
	case asJSON:
		return &silentError{code: exitFailure}
	default:
		return fmt.Errorf("%d problem(s) found, listed above", len(res.Problems))
	}
}

// printFsck renders one line per problem and warning, then a summary.
func printFsck(p *printer, res *plumbing.FsckResult) {
	for _, path := range res.Removed {
		p.printf("removed %s\n", path)
	}
	for _, pr := range res.Problems {
		p.printf("%s %s\n", p.bad("problem"), findingLine(pr))
	}
	for _, w := range res.Warnings {
		p.printf("%s %s\n", p.dim("warning"), findingLine(w))
	}
	verdict := p.good("ok")
	if !res.OK() {
		verdict = p.bad("FAILED")
	}
	p.printf("%s: %d objects, %d refs, %d problems, %d warnings\n", verdict, res.Objects, res.Refs, len(res.Problems), len(res.Warnings))
}

// findingLine is "CODE SUBJECT: MESSAGE", naming the object, ref or path
// the finding concerns (the first that is set), without repeating the
// subject or the SPEC reason when the message already carries them. A
// ref or path is a file name in the repository, which a pulled or copied
// repository chose: it is shown through oneLine like the message, so an
// escape sequence in it is printed as \x1b, not run.
func findingLine(pr plumbing.Problem) string {
	msg := oneLine(pr.Message)
	s := pr.Code
	for _, subject := range []string{pr.Object, pr.Ref, pr.Path} {
		if subject == "" {
			continue
		}
		subject = oneLine(subject)
		s += " " + subject
		for _, prefix := range []string{"object " + subject + ": ", "ref " + subject + ": ", subject + ": "} {
			msg = strings.TrimPrefix(msg, prefix)
		}
		break
	}
	s += ": " + msg
	if pr.Reason != "" && !strings.Contains(msg, string(pr.Reason)) {
		s += " (" + string(pr.Reason) + ")"
	}
	return s
}
