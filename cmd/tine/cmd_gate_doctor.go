package main

import (
	"strings"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateDoctorCmd is `tine gate doctor`.
type gateDoctorCmd struct {
	gateProject
	jsonFlag
}

// Help shows an example under `tine gate doctor --help`.
func (c *gateDoctorCmd) Help() string {
	return `Checks the contract, that every command and evaluator can be found,
cwds and ratchet baselines exist, watch globs match files, and the
repository is writable with no stale ref guards. Exits 1 on any failure.

Example:

    $ tine gate doctor
    ok   contract: tine-gate.yml: 2 constraints, digest 3fa1c2d4e5f6`
}

// Run prints the checks.
func (c *gateDoctorCmd) Run(e *env) error {
	r, err := openGateRepo(e, true)
	if err != nil {
		return err
	}
	if r != nil {
		defer r.Close()
	}
	res, err := gates.GateDoctor(e.ctx, r, c.Project)
	if err != nil {
		return err
	}
	if err := e.emit(c.JSON, res, func(p *printer) {
		for _, ch := range res.Checks {
			word := ch.Status
			if ch.Status == gates.GateCheckFail {
				word = p.bad(word)
			}
			p.printf("%-4s %s: %s\n", word, ch.Name, strings.TrimSpace(ch.Detail))
		}
	}); err != nil {
		return err
	}
	if !res.OK {
		return &silentError{code: exitFailure}
	}
	return nil
}
