package main

import (
	"encoding/json"
	"os/signal"
	"syscall"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateSuperviseCmd is `tine gate supervise NAME`.
type gateSuperviseCmd struct {
	gateProject
	Name string `arg:"" name:"loop" help:"Loop name from the contract's loops."`
}

// Help shows an example under `tine gate supervise --help`.
func (c *gateSuperviseCmd) Help() string {
	return `Runs a loop's cycles while it is waiting on pending evidence, holding a
renewable single-writer lease (gate/loops/NAME.lease.json): a second
supervisor is refused while the lease is live and takes over once it has
expired. Each state change is printed as one JSON line. It returns on the
first state other than waiting, with that state's exit code (see tine gate
cycle); it never starts an agent. SIGINT and SIGTERM stop it.

Example:

    $ tine gate supervise completion
    {"loop":"completion","state":"waiting",...}
    {"loop":"completion","state":"passed",...}`
}

// Run supervises the loop.
func (c *gateSuperviseCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGTERM)
	defer stop()
	var werr error
	emit := func(res *gates.CycleResult) {
		line, err := json.Marshal(res)
		if err == nil {
			_, err = e.stdout.Write(append(line, '\n'))
		}
		if werr == nil {
			werr = err
		}
	}
	res, err := gates.Supervise(ctx, r, c.Name, gates.SuperviseOptions{
		CycleOptions: gates.CycleOptions{Root: c.Project}, Emit: emit})
	if err != nil {
		res = gates.CycleErrorResult(c.Name, err)
		emit(res)
	}
	if werr != nil {
		return werr
	}
	if code := res.ExitCode(); code != 0 {
		return &silentError{code: code}
	}
	return nil
}
