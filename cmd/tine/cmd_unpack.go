package main

import (
	"github.com/tinehq/tine/plumbing"
)

// unpackCmd is `tine unpack FILE`.
type unpackCmd struct {
	File string `arg:"" name:"file" help:"TINEPACK3 frame to install (\"-\" for standard input)."`
	jsonFlag
}

// Help shows an example under `tine unpack --help`.
func (c *unpackCmd) Help() string {
	return `Verifies a TINEPACK3 frame completely (frame, manifest, every object,
every link) and installs its objects, link targets first, in one durable
batch. Oids the pack declares shallow and this repository lacks are added
to its shallow file. A refused frame prints its reason code and writes
nothing. Unpacking the same frame again changes nothing.

Example:

    $ tine unpack main.tinepack
    unpacked sha256:3f0c…  12 objects, 0 boundary`
}

// Run installs the frame.
func (c *unpackCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Unpack(e.ctx, r, plumbing.UnpackOptions{Path: c.File, Stdin: e.stdin})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("unpacked %s  %d objects, %d boundary\n", res.PackID, res.Objects, len(res.Boundary))
		for _, id := range res.Boundary {
			p.printf("shallow %s\n", id)
		}
	})
}
