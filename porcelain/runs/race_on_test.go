//go:build race

package runs

// raceDetector reports that the tests run under the race detector. Under
// it sync.Pool drops a random share of what is put back (by design, to
// expose misuse), so a byte count varies from run to run by a pooled
// buffer or more, and the least of five need not be a clean one: counts
// measure the detector, not the code. The run without it (CI's
// `go test ./...`) keeps them.
const raceDetector = true
