package main

import "github.com/tinehq/tine/porcelain/runs"

// resumeCmd is `tine resume REF`.
type resumeCmd struct {
	Ref string `arg:"" name:"ref" help:"Ref of the run to resume."`
	jsonFlag
}

// Help shows an example under `tine resume --help`.
func (c *resumeCmd) Help() string {
	return `Marks a paused, completed or failed run running again (a new run object
with status "running", moved onto the ref by compare-and-swap) and prints
the ref, its tips and how to continue. A running run is left alone.

Example:

    $ tine resume experiments/retry
    experiments/retry was completed, now running (run 9c1d...)
    tip 3f9a2c71d0e4
    continue with: tine record --ref experiments/retry -- CMD ARGS...`
}

// Run resumes the run.
func (c *resumeCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := runs.Resume(e.ctx, r, runs.ResumeOptions{Ref: c.Ref})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		if res.AlreadyRunning {
			p.printf("%s is already running (run %s)\n", res.Ref, shortOID(res.Run))
		} else {
			p.printf("%s was %s, now running (run %s)\n", res.Ref, res.PreviousStatus, shortOID(res.Run))
		}
		for _, t := range res.Tips {
			p.printf("tip %s\n", shortOID(t))
		}
		p.printf("continue with: %s\n", res.Continue)
	})
}
