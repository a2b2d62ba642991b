package main

import (
	"github.com/tinehq/tine/remote"
	// The http:// and https:// transport registers itself with remote.
	_ "github.com/tinehq/tine/remote/httpclient"
)

// serveGuard is the release-policy check tine serve applies to
// promotions/*; without one the server refuses every promotion.
var serveGuard remote.RefGuard
