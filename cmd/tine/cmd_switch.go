package main

import "github.com/tinehq/tine/porcelain/runs"

// switchCmd is `tine switch REF | --create NAME [START] | --clear`.
type switchCmd struct {
	Ref    string `arg:"" optional:"" name:"ref" help:"Run to make current: an existing ref (main, heads/main, experiments/try); with --create a new ref."`
	Start  string `arg:"" optional:"" name:"start" help:"With --create: the run the new ref starts at (default the current run; none: the first record creates it)."`
	Create bool   `name:"create" short:"c" help:"Create REF (heads/NAME when NAME has no namespace) and switch to it."`
	Clear  bool   `name:"clear" help:"Forget the current run: commands go back to heads/main."`
	jsonFlag
}

// Help shows examples under `tine switch --help`.
func (c *switchCmd) Help() string {
	return `Sets the current run, as git's HEAD names the current branch: record,
import, log, show and loop run then act on it when given no ref (without a
current run they use heads/main, as before). The choice is kept in the
repository's current-run file, which OpenTine never reads, with the value
the ref held, so tine status can tell when something else moved it.

Examples:

    $ tine switch experiments/retry
    $ tine switch --create try          # heads/try at the current run
    $ tine switch -c experiments/b main~2
    $ tine switch --clear`
}

// Run switches.
func (c *switchCmd) Run(e *env) error {
	if c.Clear && (c.Ref != "" || c.Create) {
		return usagef("--clear takes no ref and no --create")
	}
	if !c.Clear && c.Ref == "" {
		return usagef("name the run to switch to (or --clear)")
	}
	if c.Start != "" && !c.Create {
		return usagef("a start revision goes with --create")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Clear {
		if err := r.ClearCurrentRun(); err != nil {
			return err
		}
		return e.emit(c.JSON, &runs.SwitchResult{Ref: runs.DefaultRef}, func(p *printer) {
			p.printf("no current run: record, import, log and show use %s\n", runs.DefaultRef)
		})
	}
	res, err := runs.Switch(e.ctx, r, runs.SwitchOptions{Ref: c.Ref, Create: c.Create, Start: c.Start})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printSwitch(p, res) })
}

// printSwitch says where the current run is now.
func printSwitch(p *printer, res *runs.SwitchResult) {
	verb := "switched to"
	if res.Created {
		verb = "created and switched to"
	}
	p.printf("%s %s", verb, p.style(styleGreen, res.Ref))
	if res.Run != "" {
		p.printf(" (run %s)", shortOID(res.Run))
	} else {
		p.printf(" (no run yet: the first tine record creates it)")
	}
	p.printf("\n")
}
