package main

import (
	"fmt"
	"strings"

	"github.com/tinehq/tine/porcelain/runs"
)

// revParseCmd is `tine rev-parse NAME`.
type revParseCmd struct {
	Name string `arg:"" name:"name" help:"Revision: full oid, unique hex prefix (4+ digits), ref (heads/main, main, refs/heads/main), REF@{n} or REV~N."`
	jsonFlag
}

// Help shows an example under `tine rev-parse --help`.
func (c *revParseCmd) Help() string {
	return `A short ref name is looked up in heads/, tags/, experiments/,
promotions/, remotes/ and annotations/; a name or prefix matching more than
one candidate is refused, listing them. REF@{n} is the ref's value n updates
ago, from its reflog. REV~N is the run as it was N events ago (see
Revisions in the README): the stored run from the ref's reflog when one
holds exactly those events, else the oid the derived run would have if
written, with "(derived, not stored)" on stderr and "stored": false in
--json.

Examples:

    $ tine rev-parse main@{1}
    run:blake3:9f2c...
    $ tine rev-parse main~2`
}

// quickRead is true unless the revision is REV~N, whose derived run may
// first be added to the history index (a write an interrupt must not cut):
// an oid, a prefix, a ref or REF@{n} is only read (quickReader).
func (c *revParseCmd) quickRead() bool { return !strings.Contains(c.Name, "~") }

// Run resolves the revision.
func (c *revParseCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := runs.RevParse(e.ctx, r, c.Name)
	if err != nil {
		return err
	}
	if !res.Stored && !c.JSON {
		fmt.Fprintf(e.stderr, "tine %s: %s is derived, not stored\n", e.verb, c.Name)
	}
	return e.emit(c.JSON, res, func(p *printer) { p.printf("%s\n", res.OID) })
}
