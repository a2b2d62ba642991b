package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/tinehq/tine/plumbing"
)

// demoCmd is `tine demo [DIR]`: a guided tour of the repository core.
type demoCmd struct {
	Dir string `arg:"" optional:"" name:"dir" help:"Directory to create the demo repository in; default: a new temporary directory."`
}

// Help shows an example under `tine demo --help`.
func (c *demoCmd) Help() string {
	return `Creates a repository, stores a blob, two events and two runs, moves
heads/main with compare-and-swap, shows a stale update refused, and prints
refs, the reflog, rev-parse and fsck. Each step prints the command that does
the same by hand. The repository is kept so you can explore it.

Example:

    $ tine demo
    $ tine demo /tmp/tour`
}

// Run performs the tour.
func (c *demoCmd) Run(e *env) error {
	if err := e.refuseRepoFlag("give the directory as DIR"); err != nil {
		return err
	}
	dir := c.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "tine-demo-")
		if err != nil {
			return fmt.Errorf("creating a scratch directory: %w", err)
		}
		dir = tmp
	}
	d := &demo{e: e, p: e.printer()}
	if err := d.tour(dir); err != nil {
		return err
	}
	return d.p.err
}

// demo holds the tour's state: where it prints and the ids it made.
type demo struct {
	e *env
	p *printer
	r *plumbing.Repo
}

// step prints the command a user would type for the next step.
func (d *demo) step(format string, args ...any) {
	d.p.printf("\n$ tine "+format+"\n", args...)
}

// put stores one object from text with hash-object -w and returns its oid.
func (d *demo) put(typ, text string) (string, error) {
	opt := plumbing.HashObjectOptions{Write: true, Stdin: strings.NewReader(text), Canonicalize: typ != "blob"}
	setString(&opt.Type, typ)
	res, err := plumbing.HashObject(d.e.ctx, d.r, opt)
	if err != nil {
		return "", err
	}
	printHashed(d.p, res)
	return res.Objects[0].OID, nil
}

// putJSON stores a JSON object of the given type built from v.
func (d *demo) putJSON(typ string, v map[string]any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	d.step("hash-object -w --type %s --canonicalize --stdin <<< '%s'", typ, b)
	return d.put(typ, string(b))
}

// tour runs every step; the first failure ends it.
func (d *demo) tour(dir string) error {
	d.step("init %s", dir)
	r, ini, err := plumbing.Init(dir, "")
	if err != nil {
		return err
	}
	defer r.Close()
	d.r = r
	d.p.printf("Initialized empty tine repository (%s) in %s\n", ini.ObjectFormat, ini.Path)
	d.p.printf("%s\n", d.p.dim("(the commands below run inside it: cd "+dir+")"))

	d.step("hash-object -w --stdin <<< 'Summarise the README.'")
	prompt, err := d.put("blob", "Summarise the README.\n")
	if err != nil {
		return err
	}
	ev1, err := d.putJSON("event", map[string]any{"kind": "model", "model": "demo-model", "input_blob": prompt, "cost": 0.002, "parent_ids": []string{}})
	if err != nil {
		return err
	}
	ev2, err := d.putJSON("event", map[string]any{"kind": "tool", "tool": "read_file", "parent_ids": []string{ev1}})
	if err != nil {
		return err
	}
	run1, err := d.putJSON("run", map[string]any{"events": []string{ev1}, "roots": []string{ev1}, "tips": []string{ev1}, "status": "running"})
	if err != nil {
		return err
	}
	run2, err := d.putJSON("run", map[string]any{"events": []string{ev1, ev2}, "roots": []string{ev1}, "tips": []string{ev2}, "status": "completed"})
	if err != nil {
		return err
	}
	return d.refsTour(run1, run2)
}

// refsTour moves heads/main by compare-and-swap and inspects the result.
func (d *demo) refsTour(run1, run2 string) error {
	ctx := d.e.ctx
	d.step("update-ref heads/main %s --create", run1)
	ch, err := plumbing.UpdateRef(ctx, d.r, plumbing.UpdateRefOptions{Ref: "heads/main", New: run1, Create: true})
	if err != nil {
		return err
	}
	printChange(d.p, ch.RefChange)
	d.step("update-ref heads/main %s --old %s", run2, run1)
	if ch, err = plumbing.UpdateRef(ctx, d.r, plumbing.UpdateRefOptions{Ref: "heads/main", New: run2, Old: run1}); err != nil {
		return err
	}
	printChange(d.p, ch.RefChange)
	d.step("update-ref heads/main %s --old %s   # a writer that missed the last update", run1, run1)
	_, err = plumbing.UpdateRef(ctx, d.r, plumbing.UpdateRefOptions{Ref: "heads/main", New: run1, Old: run1})
	if err == nil {
		return fmt.Errorf("a stale compare-and-swap was accepted")
	}
	d.p.printf("tine update-ref: %s\n%s\n", stripVerb(oneLine(err.Error()), "update-ref"), d.p.dim("(refused with exit status 1; heads/main is unchanged)"))
	d.step("refs")
	refs, err := plumbing.ListRefs(ctx, d.r, plumbing.ListRefsOptions{})
	if err != nil {
		return err
	}
	printRefs(d.p, refs)
	d.step("reflog heads/main")
	log, err := plumbing.Reflog(ctx, d.r, plumbing.ReflogOptions{Ref: "heads/main"})
	if err != nil {
		return err
	}
	printReflog(d.p, log)
	d.step("rev-parse main@{1}")
	rev, err := plumbing.RevParse(ctx, d.r, plumbing.RevParseOptions{Revision: "main@{1}"})
	if err != nil {
		return err
	}
	d.p.printf("%s\n", rev.OID)
	d.step("fsck")
	res, err := plumbing.Fsck(ctx, d.r, plumbing.FsckOptions{})
	if err != nil {
		return err
	}
	printFsck(d.p, res)
	if !res.OK() {
		return fmt.Errorf("fsck found %d problem(s) in the demo repository", len(res.Problems))
	}
	d.p.printf("\nThe repository is kept in %s; explore it with tine --repo %s refs, or remove it.\n", d.r.Root(), d.r.Root())
	return nil
}
