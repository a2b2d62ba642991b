package main

import "github.com/tinehq/tine/porcelain/remotes"

// cloneCmd is `tine clone URL [DIR] [--depth N] [--ref REF] [--token-env VAR] [--endpoint URL]`.
type cloneCmd struct {
	URL      string `arg:"" name:"url" help:"The remote: a path, file://, http(s):// or s3:// URL."`
	Dir      string `arg:"" optional:"" name:"dir" help:"Directory to create (DIR/.tine); default: the URL's last path element."`
	Depth    *int   `name:"depth" placeholder:"N" help:"Fetch only N event generations from each run's tips; the rest becomes the shallow boundary."`
	Ref      string `name:"ref" placeholder:"REF" help:"Fetch only REF (main means heads/main) and create it locally."`
	TokenEnv string `name:"token-env" placeholder:"VAR" help:"Environment variable holding the bearer token (HTTP), remembered for origin."`
	Endpoint string `name:"endpoint" placeholder:"URL" help:"S3 endpoint URL (default: from the AWS environment variables), remembered for origin."`
	jsonFlag
}

// Help shows an example under `tine clone --help`.
func (c *cloneCmd) Help() string {
	return `Creates a repository with the remote's object format, names the remote
origin, fetches its refs with their runs and associations, and creates
the local heads/* refs; every other ref is a tracking ref
remotes/origin/... With --ref, only REF is fetched and created, and it
becomes the current run, as tine switch REF makes it (git clone --branch).
Without, the current run is the remote's own (a path remote's tine switch,
as git clone checks out the remote's HEAD); over HTTP and S3, which name no
default run, and when the remote's is not cloned: heads/main, or, without
it, the first heads/* ref. A failed clone removes what it created.

Examples:

    $ tine clone ../shared-runs work
    $ tine clone https://runs.example.com/v1/tenants/acme --token-env TINE_TOKEN --depth 50
    $ tine clone s3://team-runs/tine --endpoint https://s3.example.com`
}

// Run clones.
func (c *cloneCmd) Run(e *env) error {
	defer transferGC()()
	if err := e.refuseRepoFlag("give the directory as DIR"); err != nil {
		return err
	}
	depth, err := depthOf(c.Depth)
	if err != nil {
		return err
	}
	res, err := remotes.Clone(e.ctx, remotes.CloneOptions{URL: c.URL, Dir: c.Dir, TokenEnv: c.TokenEnv, Endpoint: c.Endpoint, Depth: depth, Ref: c.Ref, Env: e.remoteEnv()})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("Cloned %s into %s (%s)\n", sanitize(c.URL), res.Dir, res.ObjectFormat)
		printRefMoves(p, res.Refs)
		printCloneCurrent(p, res.Current)
		p.printf("%s received (%d bytes)", count(res.Fetch.Objects, "object"), res.Fetch.Bytes)
		if res.Fetch.Shallow > 0 {
			p.printf("; shallow boundary: %s", count(res.Fetch.Shallow, "oid"))
		}
		p.printf("\n")
	})
}

// printCloneCurrent says which run the clone's verbs act on by default, and
// which rule chose it.
func printCloneCurrent(p *printer, cur remotes.CloneCurrent) {
	switch cur.From {
	case "ref":
		p.printf("current run: %s (as tine switch %s)\n", cur.Ref, cur.Ref)
	case "remote":
		p.printf("current run: %s (the remote's current run)\n", cur.Ref)
	case "default":
		p.printf("current run: %s (the default)\n", cur.Ref)
	case "first":
		p.printf("current run: %s (the first heads/* ref: heads/main was not cloned)\n", cur.Ref)
	default:
		p.printf("no current run: the clone has no heads/* run; tine switch REF picks one\n")
	}
	if cur.Note != "" {
		p.printf("note: %s\n", sanitize(cur.Note))
	}
}
