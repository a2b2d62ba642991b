package main

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/tinehq/tine/plumbing"
)

// hashObjectCmd is `tine hash-object [-w] [--type T] [--stdin | FILE...]`.
type hashObjectCmd struct {
	Write        bool     `short:"w" help:"Store the objects in the repository (links must already be stored)."`
	Type         string   `name:"type" short:"t" enum:"blob,event,run,attestation,annotation" default:"blob" help:"Object type: blob (default), event, run, attestation or annotation."`
	Stdin        bool     `name:"stdin" help:"Read one object from standard input instead of files."`
	StdinPaths   bool     `name:"stdin-paths" help:"Read file names from standard input, one per line; print one oid per line as each batch is stored."`
	Canonicalize bool     `name:"canonicalize" help:"For JSON types: hash the canonical form of the input instead of requiring canonical input."`
	ObjectFormat string   `name:"object-format" placeholder:"blake3|sha256" help:"Hash to use outside a repository (blake3 or sha256); inside one it must match the repository's."`
	Files        []string `arg:"" optional:"" name:"file" help:"Files to hash, one object each."`
	jsonFlag
}

// Help shows an example under `tine hash-object --help`.
func (c *hashObjectCmd) Help() string {
	return `Prints one oid per input. A blob's body is the input bytes unchanged; a
JSON type's input must already be canonical (or use --canonicalize). With -w
every object is validated and stored; a refused input writes nothing.
Files of 16 MiB and more are hashed and stored in constant memory.

--stdin-paths reads one file name per line (like git hash-object
--stdin-paths): files are read in parallel and stored in batches, one
durable write per batch. An oid is printed only once its object is stored.
The first failing path stops the command: everything before it is stored
and printed, nothing after it is written.

Example:

    $ printf 'hello\n' | tine hash-object --object-format sha256 --stdin
    blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008`
}

// Run hashes (and with -w stores) the inputs.
func (c *hashObjectCmd) Run(e *env) error {
	switch {
	case c.StdinPaths && (c.Stdin || len(c.Files) > 0):
		return usagef("--stdin-paths cannot be combined with --stdin or FILE arguments")
	case c.Stdin && len(c.Files) > 0:
		return usagef("--stdin and FILE arguments cannot be combined")
	case !c.Stdin && !c.StdinPaths && len(c.Files) == 0:
		return usagef("no input: give FILE arguments or --stdin")
	case c.ObjectFormat != "" && c.ObjectFormat != "blake3" && c.ObjectFormat != "sha256":
		return usagef("--object-format must be blake3 or sha256, not %q", c.ObjectFormat)
	}
	opt := plumbing.HashObjectOptions{Write: c.Write, Canonicalize: c.Canonicalize, Paths: c.Files}
	setString(&opt.Type, c.Type)
	setString(&opt.ObjectFormat, c.ObjectFormat)
	if c.Stdin {
		opt.Stdin = e.stdin
	}
	if c.Write {
		opt.AroundStream = aroundStream
	}
	r, err := e.openRepo()
	switch {
	case err == nil:
		defer r.Close()
	case !c.Write && e.repoFlag == "" && e.getenv(plumbing.EnvDir) == "" && errors.Is(err, plumbing.ErrNotRepository):
		// Hashing needs no repository: outside one, --object-format picks the
		// hash (plumbing defaults to blake3).
		r = nil
	default:
		return err
	}
	if c.StdinPaths {
		return c.canonicalHint(c.runPaths(e, r, opt))
	}
	res, err := plumbing.HashObject(e.ctx, r, opt)
	if err != nil {
		return c.canonicalHint(err)
	}
	return e.emit(c.JSON, res, func(p *printer) { printHashed(p, res) })
}

// canonicalHint points a refusal of non-canonical JSON input at the flag
// that hashes the canonical form instead; other errors pass unchanged.
func (c *hashObjectCmd) canonicalHint(err error) error {
	return plumbing.WithCanonicalHint(err, c.Canonicalize)
}

// printHashed renders one oid per input, in input order.
func printHashed(p *printer, res *plumbing.HashObjectResult) {
	for _, o := range res.Objects {
		p.printf("%s\n", o.OID)
	}
}

// runPaths is --stdin-paths: oids are printed as their batches are stored,
// through a buffer flushed before any error line.
func (c *hashObjectCmd) runPaths(e *env, r *plumbing.Repo, opt plumbing.HashObjectOptions) error {
	popt := plumbing.HashPathsOptions{Type: opt.Type, Write: opt.Write, Canonicalize: opt.Canonicalize,
		ObjectFormat: opt.ObjectFormat, Paths: e.stdin, Bulk: plumbing.BulkOptions{AroundStream: opt.AroundStream}}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	var all []plumbing.HashedObject
	emit := func(h plumbing.HashedObject) error {
		if c.JSON {
			all = append(all, h)
			return nil
		}
		_, err := fmt.Fprintln(out, h.OID)
		return err
	}
	sum, err := plumbing.HashObjectPaths(e.ctx, r, popt, emit)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if c.JSON {
		if all == nil {
			all = []plumbing.HashedObject{}
		}
		return writeJSON(e.stdout, e.verb, struct {
			Objects []plumbing.HashedObject `json:"objects"`
			Written plumbing.BulkStats      `json:"written"`
		}{all, sum.Written})
	}
	return nil
}
