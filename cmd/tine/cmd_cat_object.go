package main

import (
	"bufio"

	"github.com/tinehq/tine/plumbing"
)

// catObjectCmd is `tine cat-object [-p | --type | --size] OBJ` and
// `tine cat-object --batch`.
type catObjectCmd struct {
	Pretty bool   `short:"p" name:"pretty" help:"Pretty-print: JSON bodies indented, blobs as stored."`
	Type   bool   `short:"t" name:"type" help:"Print only the object's type."`
	Size   bool   `short:"s" name:"size" help:"Print only the body size in bytes."`
	Batch  bool   `name:"batch" help:"Read one revision per line on standard input; print each object as \"OID TYPE SIZE\", LF, body, LF (like git cat-file --batch)."`
	Object string `arg:"" optional:"" name:"obj" help:"Object: full oid, unique prefix, ref, REF@{n} or REV~N (a stored run)."`
	jsonFlag
}

// Help shows an example under `tine cat-object --help`.
func (c *catObjectCmd) Help() string {
	return `Without a flag the body is printed byte for byte. Every read re-hashes
the object: a corrupt object is an error naming it. With --json, raw mode
adds "body" (JSON types) or "body_b64" (blobs).

--batch reads revisions from standard input, one per line, and prints
for each "OID TYPE SIZE", LF, the body and LF; a line naming no object
prints "LINE missing" and the stream goes on. A corrupt object stops it.

Examples:

    $ printf '%s\n' heads/main | tine cat-object --batch
    $ tine cat-object -p heads/main
    {
      "events": [ ... ]
    }`
}

// Run prints the object or a fact about it.
func (c *catObjectCmd) Run(e *env) error {
	if c.Batch {
		return c.runBatch(e)
	}
	if c.Object == "" {
		return usagef("missing OBJ (or use --batch)")
	}
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

// batchGCPercent is the garbage collector's target during cat-object
// --batch. A batch keeps a few dozen objects in flight and drops each
// once written, so at Go's default of 100 the collector runs every 4 MiB
// or so of garbage, about every 4,000 objects of 1 KiB: 9% of the CPU of
// a shuffled read of 100,000 such objects. At 400 it runs a quarter as
// often, for about 10 MiB more peak memory.
const batchGCPercent = 400

// runBatch answers revisions read from stdin in git's batch format.
func (c *catObjectCmd) runBatch(e *env) error {
	switch {
	case c.Object != "":
		return usagef("--batch reads revisions from standard input: drop OBJ")
	case c.Pretty || c.Type || c.Size || c.JSON:
		return usagef("--batch cannot be combined with -p, --type, --size or --json")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	defer raiseGC(batchGCPercent)()
	out := bufio.NewWriterSize(e.stdout, 256<<10)
	var hdr []byte
	_, err = plumbing.CatObjectBatch(e.ctx, r, plumbing.CatBatchOptions{Input: e.stdin}, func(b plumbing.CatBatchEntry) error {
		hdr = b.AppendHeader(hdr[:0])
		if _, err := out.Write(hdr); err != nil {
			return err
		}
		if b.Object == nil {
			return nil
		}
		if _, err := out.Write(b.Object.Body); err != nil {
			return err
		}
		return out.WriteByte('\n')
	})
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}
