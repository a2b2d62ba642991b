package main

import "github.com/tinehq/tine/porcelain/remotes"

// remoteListCmd is `tine remote list`.
type remoteListCmd struct {
	jsonFlag
}

// remoteList is the --json shape of `tine remote list`.
type remoteList struct {
	Remotes []remotes.Remote `json:"remotes"`
}

// Run lists the remotes.
func (c *remoteListCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	list, err := remotes.List(r)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, remoteList{Remotes: list}, func(p *printer) {
		for _, rm := range list {
			extra := ""
			if rm.TokenEnv != "" {
				extra = " (token from $" + rm.TokenEnv + ")"
			}
			p.printf("%s\t%s%s\n", rm.Name, sanitize(rm.URL), extra)
		}
	})
}
