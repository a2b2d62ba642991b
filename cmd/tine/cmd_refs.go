package main

import (
	"fmt"

	"github.com/tinehq/tine/plumbing"
)

// refsCmd is `tine refs [PREFIX]`.
type refsCmd struct {
	Prefix string `arg:"" optional:"" name:"prefix" help:"Only refs under this prefix, e.g. heads/ or experiments/loop1/."`
	jsonFlag
}

// Help shows an example under `tine refs --help`.
func (c *refsCmd) Help() string {
	return `Lists each ref as OID TYPE NAME, sorted by name. A ref file that cannot
be read (a symlink, not a regular file, bad content) is skipped with a
warning on stderr (in --json, listed under "unreadable"); the others are
still listed and the exit status stays 0. tine fsck reports it as a problem.

Example:

    $ tine refs heads/
    run:blake3:4a1e... run heads/main`
}

// Run lists the refs.
func (c *refsCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.ListRefs(e.ctx, r, plumbing.ListRefsOptions{Prefix: c.Prefix})
	if err != nil {
		return err
	}
	if !c.JSON {
		for _, u := range res.Unreadable {
			fmt.Fprintf(e.stderr, "tine refs: warning: skipped ref %s, which cannot be read (tine fsck reports it): %s\n", u.Name, oneLine(u.Error))
		}
	}
	return e.emit(c.JSON, res, func(p *printer) { printRefs(p, res) })
}

// printRefs renders one "OID TYPE NAME" line per ref.
func printRefs(p *printer, res *plumbing.ListRefsResult) {
	for _, ref := range res.Refs {
		p.printf("%s %s %s\n", ref.OID, ref.Type, ref.Name)
	}
}
