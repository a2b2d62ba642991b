package main

import (
	"fmt"

	"github.com/tinehq/tine/plumbing"
)

// unpackCmd is `tine unpack FILE`.
type unpackCmd struct {
	File   string `arg:"" name:"file" help:"TINEPACK3 frame to install (\"-\" for standard input)."`
	NoRefs bool   `name:"no-refs" help:"Install a bundle's objects but none of its refs."`
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
    unpacked sha256:3f0c…  12 objects, 0 boundary

A bundle (tine pack --refs) also carries refs; each is installed by
compare-and-swap and printed with what happened: created, fast-forward
(the bundle's run holds every event of the local one; an annotation chain
that continues the local one), up-to-date, diverged (the local value is
kept, never overwritten) or skipped (promotions/ refs: promotions move only
through tine promote). Exit 1 when a ref diverged or failed.`
}

// Run installs the frame.
func (c *unpackCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Unpack(e.ctx, r, plumbing.UnpackOptions{Path: c.File, Stdin: e.stdin, NoRefs: c.NoRefs, Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return err
	}
	bad := 0
	for _, ref := range res.Refs {
		if ref.Status == plumbing.RefDiverged || ref.Status == plumbing.RefFailed {
			bad++
		}
	}
	if err := e.emit(c.JSON, res, func(p *printer) {
		p.printf("unpacked %s  %d objects, %d boundary\n", res.PackID, res.Objects, len(res.Boundary))
		for _, id := range res.Boundary {
			p.printf("shallow %s\n", id)
		}
		printRefInstalls(p, res.Refs)
	}); err != nil {
		return err
	}
	switch {
	case bad == 0:
		return nil
	case c.JSON:
		return &silentError{code: exitFailure}
	}
	return fmt.Errorf("%d ref(s) not installed, listed above", bad)
}

// printRefInstalls renders one line per bundle ref: status, name, values.
func printRefInstalls(p *printer, list []plumbing.RefInstall) {
	for _, ref := range list {
		padded := fmt.Sprintf("%-12s", ref.Status)
		status := p.good(padded)
		if ref.Status == plumbing.RefDiverged || ref.Status == plumbing.RefFailed {
			status = p.bad(padded)
		}
		line := fmt.Sprintf("%s %s %s", status, ref.Name, shortOID(ref.New))
		if ref.Old != "" {
			line = fmt.Sprintf("%s %s %s..%s", status, ref.Name, shortOID(ref.Old), shortOID(ref.New))
		}
		if ref.Reason != "" {
			line += " (" + sanitize(ref.Reason) + ")"
		}
		p.printf("%s\n", line)
	}
}
