//go:build !race

package runs

// raceDetector reports that the tests run under the race detector.
const raceDetector = false
