package main

import "github.com/tinehq/tine/porcelain/remotes"

// remoteCmd is `tine remote add | list | show | remove`.
type remoteCmd struct {
	Add    remoteAddCmd    `cmd:"" help:"Name a remote: a path, file://, http(s):// (tine serve, OpenTine) or s3:// URL."`
	List   remoteListCmd   `cmd:"" help:"List the configured remotes."`
	Show   remoteShowCmd   `cmd:"" help:"Connect to a remote and list its refs beside what was last fetched."`
	Remove remoteRemoveCmd `cmd:"" help:"Forget a remote and delete its tracking refs (refs/remotes/NAME/...)."`
}

// remoteEnv is what the remote workflows need from the process: tokens
// from the environment, and the release-policy guard the file transport
// applies to promotions/* in the destination repository.
func (e *env) remoteEnv() remotes.Env {
	return remotes.Env{Getenv: e.getenv, Guard: remotes.PolicyGuard{}}
}
