package main

import (
	"github.com/tinehq/tine/plumbing"
)

// packCmd is `tine pack --output FILE [--force] [--store] REV...`.
type packCmd struct {
	Output    string   `name:"output" short:"o" placeholder:"FILE" help:"Write the TINEPACK3 frame to FILE (\"-\" for standard output)."`
	Force     bool     `name:"force" short:"f" help:"Replace FILE if it exists."`
	Store     bool     `name:"store" help:"Also keep the frame in the repository as packs/<digest>.pack."`
	Refs      bool     `name:"refs" help:"Make a bundle: the named refs (names or globs; none means every ref outside remotes/), their runs' closure, their evaluations, gate attestations and annotations, and the refs themselves, which tine unpack installs."`
	Revisions []string `arg:"" optional:"" name:"rev" help:"Objects to pack (oid, prefix, ref, REF@{n}, REV~N of a stored run); their whole link closure goes in. With --refs: refs or globs."`
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
    $ tine --repo ../copy unpack main.tinepack

With --refs the frame is a bundle, a complete hand-over of a set of
experiments: the refs (and the annotations/ refs of their runs), every
object their runs link, and the attestations and annotations that target
those runs and events. The refs travel as one annotation object inside the
frame, so OpenTine still reads it as a plain pack.

    $ tine pack --refs --output tune.bundle 'experiments/tune/*' heads/main`
}

// Run builds and writes the pack.
func (c *packCmd) Run(e *env) error {
	switch {
	case len(c.Revisions) == 0 && !c.Refs:
		return usagef("name the objects to pack (or give --refs to bundle refs)")
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
	res, err := plumbing.Pack(e.ctx, r, plumbing.PackOptions{Revisions: c.Revisions, Output: c.Output, Force: c.Force, Store: c.Store, Refs: c.Refs, Progress: e.plumbingProgress()})
	e.endProgress()
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
	if len(res.Refs) > 0 {
		p.printf("bundle: %d ref(s), %d association(s)\n", len(res.Refs), res.Associations)
	}
	for _, ref := range res.Refs {
		p.printf("ref %s %s\n", ref.Name, ref.OID)
	}
}
