package runs_test

import "github.com/tinehq/tine/porcelain/runs/runstest"

// The shared test helpers, under the short names the tests use.
var (
	newRepo     = runstest.NewRepo
	fakeClock   = runstest.FakeClock
	appendEvent = runstest.AppendEvent
	mustOID     = runstest.MustOID
	loadRef     = runstest.LoadRef
)
