package main

import (
	"github.com/tinehq/tine/plumbing"
)

// repackCmd is `tine repack`.
type repackCmd struct {
	Delete bool `name:"delete" short:"d" help:"Remove the old packs and loose copies once the new pack is durable and verified."`
	jsonFlag
}

// Help explains repack under `tine repack --help`.
func (c *repackCmd) Help() string {
	return `Writes every object, loose and packed, into one new storage pack (git
repack -a). With -d the old packs and the loose copies are removed, but only
after the new pack is durable and every entry of it has been re-read. It
never deletes an object; see tine gc --prune for that.

Example:

    $ tine repack -d
    packed 5120 objects into pack-9c2e…; removed 0 loose files, 3 old packs`
}

// Run repacks.
func (c *repackCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Repack(e.ctx, r, plumbing.RepackOptions{Delete: c.Delete, Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printGC(p, res, "", false) })
}
