package main

import (
	"fmt"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/remotes"
)

// fetchCmd is `tine fetch [REMOTE] [REF...] [--depth N] [--deepen N]`.
type fetchCmd struct {
	Remote string   `arg:"" optional:"" name:"remote" help:"A configured remote or a URL (default: origin)."`
	Refs   []string `arg:"" optional:"" name:"ref" help:"Remote refs to fetch (main means heads/main); default: all but the remote's remotes/*."`
	Depth  *int     `name:"depth" placeholder:"N" help:"Fetch only N event generations from each run's tips (0: runs and blobs only); the rest becomes the shallow boundary."`
	Deepen int      `name:"deepen" placeholder:"N" help:"Extend the shallow boundary by N event generations."`
	jsonFlag
}

// Help shows an example under `tine fetch --help`.
func (c *fetchCmd) Help() string {
	return `Brings the remote's runs with everything they link to and their
associations (evaluations, gate attestations, signatures, annotation
chains), then moves the tracking refs remotes/REMOTE/... (heads/main is
remotes/origin/main, tags/v1 is remotes/origin/tags/v1). Local refs never
move: tine pull fast-forwards one.

Examples:

    $ tine fetch origin
    $ tine fetch origin main --depth 20
    $ tine fetch origin --deepen 100`
}

// depthOf maps an optional --depth to the workflows' depth.
func depthOf(d *int) (int, error) {
	if d == nil {
		return plumbing.NoDepth, nil
	}
	if *d < 0 {
		return 0, usagef("--depth %d: want 0 or more event generations", *d)
	}
	return *d, nil
}

// Run fetches.
func (c *fetchCmd) Run(e *env) error {
	defer transferGC()()
	depth, err := depthOf(c.Depth)
	if err != nil {
		return err
	}
	switch {
	case c.Deepen < 0:
		return usagef("--deepen %d: want 1 or more event generations", c.Deepen)
	case c.Deepen > 0 && c.Depth != nil:
		return usagef("--deepen extends the existing boundary; it cannot be combined with --depth")
	case c.Deepen > 0 && len(c.Refs) > 0:
		return usagef("--deepen extends the whole shallow boundary; it takes no REF")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := remotes.Fetch(e.ctx, r, remotes.FetchOptions{Remote: c.Remote, Refs: c.Refs, Depth: depth, Deepen: c.Deepen, Env: e.remoteEnv()})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printFetch(p, res) })
}

// printFetch renders a fetch receipt.
func printFetch(p *printer, res *remotes.FetchResult) {
	p.printf("From %s\n", sanitize(res.URL))
	printRefMoves(p, res.Refs)
	p.printf("%s received (%d bytes)", count(res.Objects, "object"), res.Bytes)
	if res.Shallow > 0 {
		p.printf("; shallow boundary: %s (tine fetch --deepen N extends it)", count(res.Shallow, "oid"))
	}
	if res.AssociationsOmitted > 0 {
		p.printf("; the remote left out the associations of %d runs", res.AssociationsOmitted)
	}
	p.printf("\n")
}

// printRefMoves renders one line per ref: status, ref, where it went.
func printRefMoves(p *printer, moves []remotes.RefMove) {
	for _, mv := range moves {
		status := mv.Status
		switch mv.Status {
		case "conflict", "refused":
			status = p.bad(status)
		}
		line := "  " + status + " " + sanitize(mv.Ref)
		if mv.Local != "" && mv.Local != mv.Ref {
			line += " -> " + sanitize(mv.Local)
		}
		if mv.New != "" {
			line += " " + shortOID(mv.New)
		}
		if mv.Reason != "" {
			line += " (" + sanitize(mv.Reason) + ")"
		}
		p.printf("%s\n", line)
	}
}

// count spells n things, with an s when n is not 1.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
