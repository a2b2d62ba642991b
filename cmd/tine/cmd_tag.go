package main

import "github.com/tinehq/tine/porcelain/runs"

// tagCmd is `tine tag NAME OBJ [--force]`.
type tagCmd struct {
	Name   string `arg:"" name:"name" help:"Tag name (tags/ is added when missing)."`
	Target string `arg:"" name:"object" help:"Any object: oid, prefix, ref, REF@{n}, or a stored REF~N run."`
	Force  bool   `name:"force" short:"f" help:"Move the tag if it exists."`
	jsonFlag
}

// Help shows an example under `tine tag --help`.
func (c *tagCmd) Help() string {
	return `Points tags/NAME at any object by compare-and-swap. An existing tag is
refused unless --force.

Example:

    $ tine tag v1 heads/main
    $ tine tag --force v1 experiments/retry`
}

// Run creates or moves the tag.
func (c *tagCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := runs.Tag(e.ctx, r, runs.TagOptions{Name: c.Name, Target: c.Target, Force: c.Force})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		switch {
		case res.NoDiff:
			p.printf("%s already points at %s\n", res.Ref, res.OID)
		case res.Moved:
			p.printf("moved %s %s -> %s\n", res.Ref, res.Old, res.OID)
		default:
			p.printf("created %s -> %s (%s)\n", res.Ref, res.OID, res.Type)
		}
	})
}
