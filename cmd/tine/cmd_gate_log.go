package main

import (
	"sort"
	"strings"
	"time"

	"github.com/tinehq/tine/porcelain/gates"
)

// gateLogCmd is `tine gate log`.
type gateLogCmd struct {
	Phase string `name:"phase" enum:",change,stop,push,ci" default:"" help:"Only this phase's gate runs."`
	Limit int    `name:"limit" short:"n" default:"0" help:"Show at most N gate runs."`
	jsonFlag
}

// Help shows an example under `tine gate log --help`.
func (c *gateLogCmd) Help() string {
	return `Lists gate runs newest first (each move of a heads/gate/<phase> ref).
tine diff between two of them shows which constraints' evidence changed.

Example:

    $ tine gate log -n 2
    3f2a91c0d4e1 2025-01-02 10:04:05 stop  blocked  coverage=fail tests=pass
    9b1e0c77aa02 2025-01-02 10:01:11 stop  passed   coverage=pass tests=pass`
}

// Run lists the gate runs.
func (c *gateLogCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := gates.GateLog(e.ctx, r, gates.GateLogOptions{Phase: gates.GatePhase(c.Phase), Limit: c.Limit})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		for _, en := range res.Entries {
			ids := make([]string, 0, len(en.Verdicts))
			for id := range en.Verdicts {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			parts := make([]string, len(ids))
			for i, id := range ids {
				parts[i] = id + "=" + en.Verdicts[id]
			}
			t := time.Unix(0, int64(en.Time*1e9)).UTC().Format("2006-01-02 15:04:05")
			p.printf("%s %s %-6s %-8s %s\n", shortOID(en.Run), p.dim(t), en.Phase, en.Decision, strings.Join(parts, " "))
		}
	})
}
