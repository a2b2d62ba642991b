package main

import (
	"github.com/tinehq/tine/plumbing"
)

// packCmd is `tine pack --output FILE [--force] [--store] REV...`.
type packCmd struct {
	Output    string   `name:"output" short:"o" placeholder:"FILE" help:"Write the TINEPACK3 frame to FILE (\"-\" for standard output)."`
	Force     bool     `name:"force" short:"f" help:"Replace FILE if it exists."`
	Store     bool     `name:"store" help:"Also keep the frame in the repository as packs/<digest>.pack."`
	Revisions []string `arg:"" name:"rev" help:"Objects to pack (oid, prefix, ref, REF@{n}, REV~N of a stored run); their whole link closure goes in."`
	jsonFlag
}

// Help shows an example under `tine pack --help`.
func (c *packCmd) Help() string {
	return `Writes a TINEPACK3 transfer frame holding the named objects and every
object they link to (a run carries its events, an event its blobs and
parents). Links to objects this repository only knows as shallow are
declared in the pack's shallow list, so the receiver accepts a partial
pack. The file is written atomically and never replaced without --force.
With --output - the frame goes to standard output and the summary to
standard error.

Example:

    $ tine pack --output main.tinepack heads/main
    pack sha256:3f0c…  12 objects, 0 boundary, 5311 bytes -> main.tinepack
    $ tine --repo ../copy unpack main.tinepack`
}

// Run builds and writes the pack.
func (c *packCmd) Run(e *env) error {
	switch {
	case c.Output == "" && !c.Store:
		return usagef("give --output FILE (or - for standard output), or --store")
	case c.Output == plumbing.PackStdout && c.JSON:
		return usagef("--json cannot be combined with --output -: the frame takes standard output")
	case c.Force && (c.Output == "" || c.Output == plumbing.PackStdout):
		return usagef("--force applies to an output file")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.Pack(e.ctx, r, plumbing.PackOptions{Revisions: c.Revisions, Output: c.Output, Force: c.Force, Store: c.Store})
	if err != nil {
		return err
	}
	if c.Output == plumbing.PackStdout {
		if _, err := e.stdout.Write(res.Frame); err != nil {
			return err
		}
		p := &printer{w: e.stderr}
		printPacked(p, res)
		return p.err
	}
	return e.emit(c.JSON, res, func(p *printer) { printPacked(p, res) })
}

// printPacked renders the pack id, counts and destinations on one line.
func printPacked(p *printer, res *plumbing.PackResult) {
	p.printf("pack %s  %d objects, %d boundary, %d bytes", res.PackID, res.Objects, res.Boundary, res.Bytes)
	if res.Output != "" && res.Output != plumbing.PackStdout {
		p.printf(" -> %s", res.Output)
	}
	if res.Stored != "" {
		p.printf(" (stored %s)", res.Stored)
	}
	p.printf("\n")
}
