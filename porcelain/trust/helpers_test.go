package trust_test

import "github.com/tinehq/tine/porcelain/runs/runstest"

// The shared test helpers, under the short names the tests use.
var (
	appendEvent = runstest.AppendEvent
	loadRef     = runstest.LoadRef
	mustOID     = runstest.MustOID
	newRepo     = runstest.NewRepo
)
