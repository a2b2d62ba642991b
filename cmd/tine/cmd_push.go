package main

import "github.com/tinehq/tine/porcelain/remotes"

// pushCmd is `tine push [REMOTE] [REF...] [--all-experiments] [--expected-old OID]`.
type pushCmd struct {
	Remote         string   `arg:"" optional:"" name:"remote" help:"A configured remote or a URL (default: origin)."`
	Refs           []string `arg:"" optional:"" name:"ref" help:"Local refs to push (main means heads/main); default: heads/main."`
	AllExperiments bool     `name:"all-experiments" help:"Also push every experiments/* ref (one upload for all)."`
	ExpectedOld    string   `name:"expected-old" placeholder:"OID|absent" help:"The value the remote ref must hold now, instead of the value last fetched (one REF only)."`
	jsonFlag
}

// Help shows an example under `tine push --help`.
func (c *pushCmd) Help() string {
	return `Uploads the runs the refs name, with everything they link to and their
associations, in one upload; then moves each remote ref by
compare-and-swap from the value last fetched (remotes/REMOTE/...), or
from --expected-old. A ref someone else moved is never overwritten: the
push exits 1 naming both values and the commands that resolve it. Without
--expected-old, heads/* and experiments/* move only by fast-forward: a
local run lacking any event of the remote's run as last fetched is
refused (tine pull takes them; --expected-old replaces it on purpose).
promotions/* move only if the remote's own release policy holds.

Examples:

    $ tine push origin main
    $ tine push origin --all-experiments
    $ tine push origin promotions/production`
}

// Run pushes.
func (c *pushCmd) Run(e *env) error {
	defer transferGC()()
	if c.Remote == "" && len(c.Refs) > 0 {
		return usagef("name the remote before the refs")
	}
	if c.ExpectedOld != "" {
		if len(c.Refs) > 1 {
			return usagef("--expected-old is the value of one remote ref: push one REF with it, not %d", len(c.Refs))
		}
		if !remotes.ExpectedOldSyntax(c.ExpectedOld) {
			return usagef("--expected-old %q: want a full oid or %q", c.ExpectedOld, remotes.ExpectAbsent)
		}
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := remotes.Push(e.ctx, r, remotes.PushOptions{Remote: c.Remote, Refs: c.Refs, AllExperiments: c.AllExperiments, ExpectedOld: c.ExpectedOld, Env: e.remoteEnv()})
	if res == nil {
		return err
	}
	if perr := e.emit(c.JSON, res, func(p *printer) {
		p.printf("To %s\n", sanitize(res.URL))
		printRefMoves(p, res.Refs)
		p.printf("%s sent (%d bytes, %s)\n", count(res.Objects, "object"), res.Bytes, count(res.Packs, "upload"))
	}); perr != nil {
		return perr
	}
	return err
}
