package main

import "github.com/tinehq/tine/plumbing"

// deleteRefCmd is `tine delete-ref REF [--old OLD]`.
type deleteRefCmd struct {
	Ref string `arg:"" name:"ref" help:"Ref to delete, e.g. heads/topic."`
	Old string `name:"old" placeholder:"OLD" help:"Delete only if the ref holds OLD now (compare-and-swap)."`
	jsonFlag
}

// Help shows an example under `tine delete-ref --help`.
func (c *deleteRefCmd) Help() string {
	return `The ref must exist. Its reflog is kept. A damaged ref file (one that
holds no oid of this repository, as tine fsck reports) can be deleted
only without --old.

Example:

    $ tine delete-ref heads/topic --old run:blake3:4a1e...
    delete heads/topic run:blake3:4a1e...`
}

// Run deletes the ref.
func (c *deleteRefCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.DeleteRef(e.ctx, r, plumbing.DeleteRefOptions{Ref: c.Ref, Old: c.Old})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printChange(p, res.RefChange) })
}
