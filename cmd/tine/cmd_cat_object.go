package main

import "github.com/tinehq/tine/plumbing"

// catObjectCmd is `tine cat-object [-p | --type | --size] OBJ`.
type catObjectCmd struct {
	Pretty bool   `short:"p" name:"pretty" help:"Pretty-print: JSON bodies indented, blobs as stored."`
	Type   bool   `short:"t" name:"type" help:"Print only the object's type."`
	Size   bool   `short:"s" name:"size" help:"Print only the body size in bytes."`
	Object string `arg:"" name:"obj" help:"Object: full oid, unique prefix, ref or REF@{n}."`
	jsonFlag
}

// Help shows an example under `tine cat-object --help`.
func (c *catObjectCmd) Help() string {
	return `Without a flag the body is printed byte for byte. Every read re-hashes
the object: a corrupt object is an error naming it. With --json, raw mode
adds "body" (JSON types) or "body_b64" (blobs).

Example:

    $ tine cat-object -p heads/main
    {
      "events": [ ... ]
    }`
}

// Run prints the object or a fact about it.
func (c *catObjectCmd) Run(e *env) error {
	mode := plumbing.CatRaw
	n := 0
	for _, m := range []struct {
		on   bool
		mode plumbing.CatMode
	}{{c.Pretty, plumbing.CatPretty}, {c.Type, plumbing.CatType}, {c.Size, plumbing.CatSize}} {
		if m.on {
			n++
			mode = m.mode
		}
	}
	switch {
	case n > 1:
		return usagef("-p, --type and --size cannot be combined")
	case c.Pretty && c.JSON:
		return usagef("-p has no effect with --json (the JSON body is already structured)")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.CatObject(e.ctx, r, plumbing.CatObjectOptions{Revision: c.Object, Mode: mode})
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, e.verb, res)
	}
	_, err = e.stdout.Write(res.Output)
	return err
}
