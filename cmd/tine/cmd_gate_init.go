package main

import (
	"strings"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateInitCmd is `tine gate init`.
type gateInitCmd struct {
	gateProject
	jsonFlag
}

// Help shows an example under `tine gate init --help`.
func (c *gateInitCmd) Help() string {
	return `Looks for go.mod, pyproject.toml/setup.py/requirements.txt and
package.json and writes tine-gate.yml with a commented constraint per check
those tools already provide. Installs nothing; never overwrites a contract.

Example:

    $ tine gate init
    wrote tine-gate.yml (go): go_vet, go_test; review it, then commit it`
}

// Run writes the contract.
func (c *gateInitCmd) Run(e *env) error {
	if err := e.refuseRepoFlag("gate init writes only the project's contract"); err != nil {
		return err
	}
	res, err := gates.GateInit(gates.GateInitOptions{Root: c.Project})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("wrote %s (%s): %s; review it, then commit it\n", res.Path, strings.Join(res.Detected, ", "), strings.Join(res.Constraints, ", "))
	})
}
