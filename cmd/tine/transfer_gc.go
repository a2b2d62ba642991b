package main

import (
	"os"
	"runtime/debug"
)

// transferGCPercent is the garbage collector's target during push, fetch,
// pull and clone. A transfer keeps the objects its walk read other than
// runs (events, mostly) and every object's links until it ends, and the
// receiver the events it installed, so at Go's default of 100 the
// collector rescans those live objects many times for little garbage:
// about a seventh of a 10,000-event path push's CPU time. 400 trades that
// for a higher peak (about 185 MiB instead of 110 MiB for such a push,
// measured when the walk also kept every run). Runs, most of a history's
// bytes, are read again when sent, in batches of remote.FileBatchBytes
// over a path: a clone of a 1,000-iteration loop (81 MB of run bodies)
// peaks at 220-260 MiB at 400 (about 170 MiB at 200).
const transferGCPercent = 400

// transferGC raises the collector's target for one transfer verb unless
// the user set GOGC, and returns the function restoring it.
func transferGC() func() { return raiseGC(transferGCPercent) }

// raiseGC sets the collector's target to percent for one verb unless the
// user set GOGC, and returns the function restoring it.
func raiseGC(percent int) func() {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}

// raiseGCWithin is raiseGC with a soft memory limit of limit bytes besides
// (unless the user set GOMEMLIMIT): the collector runs rarely while the
// heap is small and as often as it must near the limit, for a verb whose
// peak has a target (log --all: under 64 MiB).
func raiseGCWithin(percent int, limit int64) func() {
	restore := raiseGC(percent)
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return restore
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old); restore() }
}
