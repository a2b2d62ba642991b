package main

import (
	"fmt"
	"os"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain"
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
experiments/second-approach, records a second approach that passes, then
prints log --graph --all, the diff of the two attempts, replay --verify
and fsck. Each step prints the command that does the same by hand. Only
POSIX sh, cat, sed and mv are needed. The directory is kept so you can
explore it.

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
	r, res, err := porcelain.Demo(e.ctx, porcelain.DemoOptions{
		Dir:    dir,
		Stdout: e.stdout,
		Stderr: e.stdout, // one stream, so the story reads in order
		Step: func(s porcelain.DemoStep) {
			if s.Note != "" {
				p.printf("\n%s\n", p.dim("# "+s.Note))
			}
			if s.Command != "" {
				p.printf("$ tine %s\n", s.Command)
			}
		},
	})
	if err != nil {
		return err
	}
	defer r.Close()
	if err := showDemo(e, p, r, res); err != nil {
		return err
	}
	p.printf("\nThe repository is kept in %s; explore it with: cd %s && tine log --graph --all\n", res.Root, res.Dir)
	return p.err
}

// showDemo prints what the story built: the graph of both attempts, their
// diff, a replay check and fsck.
func showDemo(e *env, p *printer, r *plumbing.Repo, res *porcelain.DemoResult) error {
	p.printf("\n$ tine log --graph --all\n")
	lg, err := porcelain.Log(e.ctx, r, porcelain.LogOptions{All: true, Graph: true})
	if err != nil {
		return err
	}
	printLog(p, lg, false)

	p.printf("\n$ tine diff %s %s --text\n", res.Main, res.Fork)
	d, err := porcelain.DiffRevisions(e.ctx, r, res.Main, res.Fork, porcelain.DiffOptions{Text: true})
	if err != nil {
		return err
	}
	printDiff(p, d)

	p.printf("\n$ tine replay %s --verify\n", res.Fork)
	v, err := porcelain.VerifyRevision(e.ctx, r, res.Fork)
	if err != nil {
		return err
	}
	printVerify(p, v)

	p.printf("\n$ tine fsck\n")
	fs, err := plumbing.Fsck(e.ctx, r, plumbing.FsckOptions{})
	if err != nil {
		return err
	}
	printFsck(p, fs)
	if !fs.OK() || !v.OK {
		return fmt.Errorf("the demo repository does not verify (%d fsck problem(s), %d drifted object(s))", len(fs.Problems), len(v.Drift))
	}
	return nil
}
