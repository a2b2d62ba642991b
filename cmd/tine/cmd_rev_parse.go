package main

import "github.com/tinehq/tine/plumbing"

// revParseCmd is `tine rev-parse NAME`.
type revParseCmd struct {
	Name string `arg:"" name:"name" help:"Revision: full oid, unique hex prefix (4+ digits), ref (heads/main, main, refs/heads/main) or REF@{n}."`
	jsonFlag
}

// Help shows an example under `tine rev-parse --help`.
func (c *revParseCmd) Help() string {
	return `A short ref name is looked up in heads/, tags/, experiments/,
promotions/, remotes/ and annotations/; a name or prefix matching more than
one candidate is refused, listing them. REF@{n} is the ref's value n updates
ago, from its reflog.

Example:

    $ tine rev-parse main@{1}
    run:blake3:9f2c...`
}

// Run resolves the revision.
func (c *revParseCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.RevParse(e.ctx, r, plumbing.RevParseOptions{Revision: c.Name})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { p.printf("%s\n", res.OID) })
}
