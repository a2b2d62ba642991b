package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/porcelain"
)

// importCmd is `tine import FILE.jsonl [--ref REF]`.
type importCmd struct {
	File string `arg:"" name:"file" help:"JSONL stream, one event per line (\"-\" reads standard input; blob paths are then relative to the current directory)."`
	Ref  string `name:"ref" placeholder:"REF" help:"Run to append to (default heads/main; created if absent)."`
	jsonFlag
}

// Help shows an example under `tine import --help`.
func (c *importCmd) Help() string {
	return `Each line is an event payload plus "id" (a local name), "parents" (local
ids of earlier lines; absent means the previous line, [] a root), "causal",
and "input"/"output"/"artifact" as text, {"path": FILE} (relative to the
stream's directory, no .. or symlinks) or {"b64": DATA}. Everything is
redacted before hashing. All or nothing: the ref moves once, at the end.

Example:

    $ cat steps.jsonl
    {"id":"plan","kind":"model","model":"gpt-5","cost":0.002,"input":"plan the fix"}
    {"id":"run","kind":"tool","tool":"pytest","output":{"path":"out/pytest.txt"}}
    $ tine import steps.jsonl --ref experiments/try1`
}

// Run imports the stream.
func (c *importCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	var in io.Reader = e.stdin
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return err
		}
		defer f.Close()
		in, dir = f, filepath.Dir(c.File)
	}
	res, err := porcelain.Import(e.ctx, r, porcelain.ImportOptions{Ref: c.Ref, Input: in, Dir: dir})
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("imported %d events onto %s (run %s)\n", len(res.Events), res.Ref, shortOID(res.Run))
	})
}
