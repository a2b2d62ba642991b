//go:build race

package httpclient_test

// raceDetector reports that the tests run under the race detector, which
// slows the 60,001-object round trip past any sensible budget; the run
// without it covers that test.
const raceDetector = true
