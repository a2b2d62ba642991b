package main

import "github.com/tinehq/tine/porcelain/runs"

// captureFlag is --no-capture, shared by the verbs that run commands and
// record the code state they run in (record, loop run, gate run).
type captureFlag struct {
	NoCapture bool `name:"no-capture" help:"Do not record the code state (git commit, branch, dirty patch, untracked files) commands run in; TINE_CAPTURE=off does the same."`
}

// captureWanted reports whether the code state is captured: not with
// --no-capture, nor when TINE_CAPTURE is 0, off, false or no.
func (c captureFlag) captureWanted(e *env) bool {
	return !c.NoCapture && !runs.CaptureOff([]string{runs.CaptureEnvVar + "=" + e.getenv(runs.CaptureEnvVar)})
}
