package main

import "github.com/tinehq/tine/porcelain/remotes"

// remoteShowCmd is `tine remote show NAME`.
type remoteShowCmd struct {
	Name string `arg:"" name:"name" help:"A configured remote."`
	jsonFlag
}

// Help shows an example under `tine remote show --help`.
func (c *remoteShowCmd) Help() string {
	return `Connects to the remote and lists its refs, each beside what was last
fetched: up-to-date, changed or not-fetched.

Example:

    $ tine remote show origin
    remote origin
      url: /home/ana/shared-runs
      object format: blake3 (file)
      up-to-date   heads/main run:blake3:da79...`
}

// Run connects and lists the remote's refs.
func (c *remoteShowCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := remotes.Show(e.ctx, r, c.Name, e.remoteEnv())
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("remote %s\n  url: %s\n", res.Name, sanitize(res.URL))
		if res.TokenEnv != "" {
			state := "set"
			if !res.TokenSet {
				state = "empty"
			}
			p.printf("  token: $%s (%s)\n", res.TokenEnv, state)
		}
		if !res.Exists {
			p.printf("  empty (%s): the first push creates it\n", res.Protocol)
			return
		}
		p.printf("  object format: %s (%s)\n", res.ObjectFormat, res.Protocol)
		for _, ref := range res.Refs {
			p.printf("  %-12s %s %s\n", ref.State, sanitize(ref.Ref), ref.ID)
		}
	})
}
