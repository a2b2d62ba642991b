package main

import "github.com/tinehq/tine/porcelain/remotes"

// pullCmd is `tine pull [REMOTE] [REF]`.
type pullCmd struct {
	Remote string `arg:"" optional:"" name:"remote" help:"A configured remote (default: origin)."`
	Ref    string `arg:"" optional:"" name:"ref" help:"The ref to pull (main means heads/main; default: heads/main)."`
	jsonFlag
}

// Help shows an example under `tine pull --help`.
func (c *pullCmd) Help() string {
	return `Fetches REF and fast-forwards the local ref to the remote run, but only
when the remote run holds every event of the local run. A local run that
holds every remote event and more is ahead: nothing moves, exit 0 (tine
push sends its events). Otherwise the runs diverged: nothing moves, and
pull exits 1 suggesting tine diff to compare them or tine fork to
continue from the remote run.

Example:

    $ tine pull origin main`
}

// Run pulls.
func (c *pullCmd) Run(e *env) error {
	defer transferGC()()
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := remotes.Pull(e.ctx, r, remotes.PullOptions{Remote: c.Remote, Ref: c.Ref, Env: e.remoteEnv()})
	if res == nil {
		return err
	}
	if perr := e.emit(c.JSON, res, func(p *printer) {
		printFetch(p, res.Fetch)
		printRefMoves(p, []remotes.RefMove{res.Move})
	}); perr != nil {
		return perr
	}
	return err
}
