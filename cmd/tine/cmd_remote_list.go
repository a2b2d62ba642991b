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

// Help shows an example under `tine remote list --help`.
func (c *remoteListCmd) Help() string {
	return `One line per remote, sorted by name: its name, its URL and, for an HTTP
remote, the environment variable its token is read from.

Example:

    $ tine remote list
    hub	https://runs.example.com/v1/tenants/acme (token from $TINE_TOKEN)
    origin	/home/ana/shared-runs`
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
