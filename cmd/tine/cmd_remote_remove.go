package main

import "github.com/tinehq/tine/porcelain/remotes"

// remoteRemoveCmd is `tine remote remove NAME`.
type remoteRemoveCmd struct {
	Name string `arg:"" name:"name" help:"A configured remote."`
	jsonFlag
}

// remoteRemoved is the --json shape of `tine remote remove`.
type remoteRemoved struct {
	remotes.Remote
	// Deleted are the tracking refs deleted.
	Deleted []string `json:"deleted"`
}

// Help shows an example under `tine remote remove --help`.
func (c *remoteRemoveCmd) Help() string {
	return `Forgets the remote and deletes its tracking refs (remotes/NAME/...);
nothing on the remote itself changes.

Example:

    $ tine remote remove origin
    removed remote origin and 2 tracking refs`
}

// Run removes the remote and its tracking refs.
func (c *remoteRemoveCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	rm, deleted, err := remotes.Remove(r, c.Name)
	if err != nil {
		return err
	}
	if deleted == nil {
		deleted = []string{}
	}
	return e.emit(c.JSON, remoteRemoved{Remote: rm, Deleted: deleted}, func(p *printer) {
		p.printf("removed remote %s and %d tracking refs\n", rm.Name, len(deleted))
	})
}
