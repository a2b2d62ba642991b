package main

import (
	"github.com/tinehq/tine/plumbing"
)

// indexPackCmd is `tine index-pack`.
type indexPackCmd struct {
	Pack string `arg:"" name:"pack" help:"The pack whose index to rebuild (pack-<hex>, with or without .pack/.idx)."`
	jsonFlag
}

// Help explains index-pack under `tine index-pack --help`.
func (c *indexPackCmd) Help() string {
	return `Rebuilds a storage pack's index (objects/pack/pack-H.idx) from the pack
file, when the index is damaged or missing (tine fsck names such packs).
The pack's checksum must match its name; every object found is re-hashed
before the new index is written (temporary file, fsync, rename). A pack
whose envelope boundaries cannot be told apart is refused, never guessed.

Example:

    $ tine index-pack pack-5be1…
    rebuilt the index of pack-5be1…: 1204 objects`
}

// Run rebuilds the index.
func (c *indexPackCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.IndexPack(e.ctx, r, c.Pack)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("rebuilt the index of %s: %d objects\n", res.Pack, res.Objects)
	})
}
