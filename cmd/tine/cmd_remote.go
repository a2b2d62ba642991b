package main

import "github.com/tinehq/tine/porcelain/remotes"

// remoteCmd is `tine remote add | list | show | remove`.
type remoteCmd struct {
	Add    remoteAddCmd    `cmd:"" help:"Name a remote: a path, file://, http(s):// (tine serve, OpenTine) or s3:// URL."`
	List   remoteListCmd   `cmd:"" help:"List the configured remotes."`
	Show   remoteShowCmd   `cmd:"" help:"Connect to a remote and list its refs beside what was last fetched."`
	Remove remoteRemoveCmd `cmd:"" help:"Forget a remote and delete its tracking refs (refs/remotes/NAME/...)."`
}

// Help shows examples under `tine remote --help`.
func (c *remoteCmd) Help() string {
	return `A remote names another repository: a path or file:// URL, or a URL a
transport of this build handles. It lives in remotes.json in the
repository directory; only the name of a token's environment variable is
stored.

Examples:

    $ tine remote add origin ../shared-runs
    $ tine remote show origin
    $ tine remote remove origin`
}

// remoteEnv is what the remote workflows need from the process: tokens
// from the environment, and the release-policy guard the file transport
// applies to promotions/* in the destination repository.
func (e *env) remoteEnv() remotes.Env {
	return remotes.Env{Getenv: e.getenv, Guard: remotes.PolicyGuard{}}
}
