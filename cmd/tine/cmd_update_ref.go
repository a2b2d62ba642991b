package main

import "github.com/tinehq/tine/plumbing"

// updateRefCmd is `tine update-ref REF NEW [--old OLD | --create]` and
// `tine update-ref --stdin`.
type updateRefCmd struct {
	Ref    string `arg:"" optional:"" name:"ref" help:"Ref to move, e.g. heads/main (\"refs/\" optional), or the short name of an existing ref."`
	New    string `arg:"" optional:"" name:"new" help:"Revision of the new value: oid, unique prefix, ref, REF@{n} or REV~N (a stored run)."`
	Old    string `name:"old" placeholder:"OLD" help:"Move only if the ref holds OLD now (compare-and-swap); \"absent\" means it must not exist."`
	Create bool   `name:"create" help:"Move only if the ref does not exist yet."`
	Stdin  bool   `name:"stdin" help:"Read a transaction from standard input and apply it all or nothing."`
	Actor  string `name:"actor" help:"Name recorded in the reflog (default: local)."`
	jsonFlag
}

// Help shows examples under `tine update-ref --help`.
func (c *updateRefCmd) Help() string {
	return `Without --old or --create the ref moves whatever it holds. A ref that no
longer holds the expected value is refused (exit 1) naming expected and
actual values. With --stdin, each line is one of

    create REF NEW
    update REF NEW [OLD]
    delete REF [OLD]
    verify REF [OLD]

and either every line applies or none does.

Examples:

    $ tine update-ref heads/main run:blake3:9f2c... --create
    $ tine update-ref heads/main run:blake3:4a1e... --old run:blake3:9f2c...
    $ printf 'verify heads/main run:blake3:4a1e...\ndelete heads/old\n' | tine update-ref --stdin`
}

// Run moves the ref, or applies the --stdin transaction.
func (c *updateRefCmd) Run(e *env) error {
	if c.Stdin {
		return c.runStdin(e)
	}
	switch {
	case c.Ref == "" || c.New == "":
		return usagef("need REF and NEW (or --stdin)")
	case c.Old != "" && c.Create:
		return usagef("--old and --create cannot be combined (--old absent already means create)")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.UpdateRef(e.ctx, r, plumbing.UpdateRefOptions{Ref: c.Ref, New: c.New, Old: c.Old, Create: c.Create, Actor: c.Actor})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printChange(p, res.RefChange) })
}

// printChange renders one ref change as a line a person can read:
// "create heads/main run:..." or "update heads/main OLD -> NEW".
func printChange(p *printer, ch plumbing.RefChange) {
	switch {
	case ch.Op == "delete" || ch.Op == "verify":
		if ch.Old == "" || ch.Old == "*" {
			p.printf("%s %s\n", ch.Op, ch.Ref)
		} else {
			p.printf("%s %s %s\n", ch.Op, ch.Ref, ch.Old)
		}
	case ch.Old == "" || ch.Old == "*":
		p.printf("%s %s %s\n", ch.Op, ch.Ref, ch.New)
	default:
		p.printf("%s %s %s -> %s\n", ch.Op, ch.Ref, ch.Old, ch.New)
	}
}

// runStdin applies a transaction read from standard input.
func (c *updateRefCmd) runStdin(e *env) error {
	switch {
	case c.Ref != "" || c.New != "":
		return usagef("--stdin and REF/NEW arguments cannot be combined (put them in the stream)")
	case c.Old != "":
		return usagef("--old has no effect with --stdin (give OLD on the stream's lines)")
	case c.Create:
		return usagef("--create has no effect with --stdin (use a create line)")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.UpdateRefStdin(e.ctx, r, plumbing.UpdateRefStdinOptions{Input: e.stdin, Actor: c.Actor})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		for _, ch := range res.Changes {
			printChange(p, ch)
		}
	})
}
