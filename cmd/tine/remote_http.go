package main

import (
	"github.com/tinehq/tine/porcelain/remotes"
	"github.com/tinehq/tine/remote"
	// The http:// and https:// transport registers itself with remote.
	_ "github.com/tinehq/tine/remote/httpclient"
)

// serveGuard is the release-policy check tine serve applies to
// promotions/*: the tenant repository's tine-policy.json, judged exactly
// as tine promote judges it.
var serveGuard remote.RefGuard = remotes.PolicyGuard{}
