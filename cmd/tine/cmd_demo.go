package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/demo"
	"github.com/tinehq/tine/porcelain/loops"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// demoCmd is `tine demo [DIR]`: a guided story in a scratch repository.
type demoCmd struct {
	Dir string `arg:"" optional:"" name:"dir" help:"New or empty directory for the demo's workspace and repository; default: a new temporary directory."`
}

// Help shows an example under `tine demo --help`.
func (c *demoCmd) Help() string {
	return `An agent is asked to fix a failing test. The demo writes a tiny shell
project, records a first attempt on heads/main (real sh commands and model
steps with cost and tokens) that fails, forks it after the read step onto
experiments/second-approach, records a second approach that passes, and
runs a small numeric loop (experiments/tune/...). It prints log --graph
--all, the diff of the two attempts and replay --verify, then plays a
release: loop show, a new Ed25519 key, a release policy (tine-policy.json)
asking for a signed quality score >= 0.9, a promotion refused because the
run is not evaluated yet, a signed evaluation of experiments/tune/best,
candidates, the promotion that passes, promotions, and fsck. Each step
prints the command that does the same by hand. Only POSIX sh, cat, sed
and mv are needed. The directory is kept so you can explore it.

Example:

    $ go run ./cmd/tine demo
    $ tine demo /tmp/tour && cd /tmp/tour && tine log --graph --all`
}

// Run tells the story.
func (c *demoCmd) Run(e *env) error {
	if err := e.refuseRepoFlag("give the directory as DIR"); err != nil {
		return err
	}
	dir := c.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "tine-demo-")
		if err != nil {
			return fmt.Errorf("creating a scratch directory: %w", err)
		}
		dir = tmp
	}
	p := e.printer()
	opt := demo.DemoOptions{
		Dir:    dir,
		Stdout: e.stdout,
		Stderr: e.stdout, // one stream, so the story reads in order
		Step: func(s demo.DemoStep) {
			if s.Note != "" {
				p.printf("\n%s\n", p.dim("# "+s.Note))
			}
			if s.Command != "" {
				p.printf("$ tine %s\n", s.Command)
			}
		},
		Done: func(s demo.DemoStep) { printDemoOutput(p, s) },
	}
	r, res, err := demo.Demo(e.ctx, opt)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := showDemo(e, p, r, res); err != nil {
		return err
	}
	if _, err := demo.DemoRelease(e.ctx, r, opt, res); err != nil {
		return err
	}
	if err := demoFsck(e, p, r); err != nil {
		return err
	}
	p.printf("\nThe repository is kept in %s; explore it with: cd %s && tine log --graph --all\n", res.Root, res.Dir)
	return p.err
}

// showDemo prints what the story built: the graph of both attempts and
// the loop's branches, the attempts' diff and a replay check.
func showDemo(e *env, p *printer, r *plumbing.Repo, res *demo.DemoResult) error {
	p.printf("\n$ tine log --graph --all\n")
	lg, err := runs.Log(e.ctx, r, runs.LogOptions{All: true, Graph: true})
	if err != nil {
		return err
	}
	printLog(p, lg, false)

	p.printf("\n$ tine diff %s %s --text\n", res.Main, res.Fork)
	d, err := runs.DiffRevisions(e.ctx, r, res.Main, res.Fork, runs.DiffOptions{Text: true})
	if err != nil {
		return err
	}
	printDiff(p, d)

	p.printf("\n$ tine replay %s --verify\n", res.Fork)
	v, err := runs.VerifyRevision(e.ctx, r, res.Fork)
	if err != nil {
		return err
	}
	printVerify(p, v)
	if !v.OK {
		return fmt.Errorf("the demo run does not replay (%d drifted object(s))", len(v.Drift))
	}
	return nil
}

// demoFsck ends the demo with fsck over everything it wrote.
func demoFsck(e *env, p *printer, r *plumbing.Repo) error {
	p.printf("\n$ tine fsck\n")
	fs, err := plumbing.Fsck(e.ctx, r, plumbing.FsckOptions{})
	if err != nil {
		return err
	}
	printFsck(p, fs)
	if !fs.OK() {
		return fmt.Errorf("the demo repository does not verify (%d fsck problem(s))", len(fs.Problems))
	}
	return nil
}

// printDemoOutput prints a step's outcome as the command would, the
// expected refusal with the error line the command prints.
func printDemoOutput(p *printer, s demo.DemoStep) {
	switch o := s.Output.(type) {
	case *loops.LoopRunResult:
		printLoopRun(p, o)
	case *loops.LoopShowResult:
		printLoopShow(p, o, false)
	case *plumbing.KeygenResult:
		// The files are in the workspace, where the narrated commands run.
		p.printf("%s key written to %s\npublic key written to %s\nfingerprint %s\n", o.Algorithm, filepath.Base(o.Out), filepath.Base(o.Pub), o.Fingerprint)
	case demo.DemoPolicy:
		p.printf("$ cat %s\n%s", trust.PolicyFileName, o)
	case *trust.PromoteResult:
		printPromote(p, o)
	case *trust.AttestResult:
		printAttestResult(p, o)
	case *trust.CandidatesResult:
		printCandidates(p, o)
	case *trust.PromotionsResult:
		printPromotions(p, o)
	}
	if s.Err != nil {
		verb := strings.Fields(s.Command)[0]
		p.printf("tine %s: %s\n", verb, stripVerb(oneLine(s.Err.Error()), verb))
	}
}
