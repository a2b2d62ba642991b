package main

import (
	"time"

	"github.com/tinehq/tine/plumbing"
)

// reflogCmd is `tine reflog REF`.
type reflogCmd struct {
	Ref string `arg:"" name:"ref" help:"Ref whose history to show: heads/main, a short name (main), or REF@{n} to start at row n."`
	jsonFlag
}

// Help shows an example under `tine reflog --help`.
func (c *reflogCmd) Help() string {
	return `Newest first. REF@{n} in any revision names the value on row n;
tine reflog REF@{n} starts at that row.

Example:

    $ tine reflog heads/main
    heads/main@{0} run:blake3:4a1e... (was run:blake3:9f2c...) local 2026-01-02T10:00:00Z
    heads/main@{1} run:blake3:9f2c... (created) local 2026-01-02T09:59:58Z`
}

// Run shows the reflog.
func (c *reflogCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Reflog(e.ctx, r, plumbing.ReflogOptions{Ref: c.Ref})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printReflog(p, res) })
}

// printReflog renders one line per row, newest first, in the REF@{n}
// spelling that rev-parse accepts.
func printReflog(p *printer, res *plumbing.ReflogResult) {
	for _, row := range res.Entries {
		was := "(created)"
		if row.Old != "" {
			was = "(was " + row.Old + ")"
		}
		p.printf("%s@{%d} %s %s %s %s\n", res.Ref, row.Index, row.New, p.dim(was), row.Actor,
			p.dim(row.Time.UTC().Format(time.RFC3339Nano)))
	}
}
