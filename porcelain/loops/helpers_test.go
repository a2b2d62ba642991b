package loops_test

import "github.com/tinehq/tine/porcelain/runs/runstest"

// The shared test helpers, under the short names the tests use.
var (
	fakeClock = runstest.FakeClock
	loadRef   = runstest.LoadRef
	newRepo   = runstest.NewRepo
)
