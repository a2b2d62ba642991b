package main

import "github.com/tinehq/tine/porcelain/remotes"

// remoteAddCmd is `tine remote add NAME URL [--token-env VAR] [--endpoint URL]`.
type remoteAddCmd struct {
	Name     string `arg:"" name:"name" help:"Remote name (lower-case letters, digits, '-'): tracking refs go under remotes/NAME/."`
	URL      string `arg:"" name:"url" help:"A path or file:// URL (another repository), http(s)://HOST/v1/tenants/T, or s3://BUCKET/PREFIX."`
	TokenEnv string `name:"token-env" placeholder:"VAR" help:"Environment variable holding the bearer token (HTTP); the token itself is never stored."`
	Endpoint string `name:"endpoint" placeholder:"URL" help:"S3 endpoint URL (default: from the AWS environment variables)."`
	jsonFlag
}

// Help shows an example under `tine remote add --help`.
func (c *remoteAddCmd) Help() string {
	return `Records the remote in remotes.json in the repository directory (OpenTine
ignores the file; config.json is never touched). Only the name of the
token's environment variable is stored, and a URL carrying user
information is refused.

Examples:

    $ tine remote add origin ../shared-runs
    $ tine remote add hub https://runs.example.com/v1/tenants/acme --token-env TINE_TOKEN`
}

// Run adds the remote.
func (c *remoteAddCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	rm, err := remotes.Add(r, remotes.Remote{Name: c.Name, URL: c.URL, TokenEnv: c.TokenEnv, Endpoint: c.Endpoint})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, rm, func(p *printer) { p.printf("added remote %s %s\n", rm.Name, rm.URL) })
}
