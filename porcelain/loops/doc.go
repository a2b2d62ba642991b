// Package loops records the improvement-loop engine (package loop) as runs:
// every branch of loop L is a run at experiments/L/<branch> and the best
// branch's run is also at experiments/L/best. It holds the recorder the
// engine hands its events to (NewLoopRecorder), the loop verbs (LoopRun,
// LoopShow, LoopDiff) and the event encoding of steps, states and scores.
//
// loops sits above porcelain/runs only; internal/archtest keeps it from
// importing the gates, trust or demo rooms. Nothing here prints or exits.
//
// Reading a loop back (LoopShow, LoopDiff) lists its branch runs through
// objects.Getter and runs.RefLister; the recorder keeps *plumbing.Repo,
// whose bulk writer, write resolver and ref transactions it needs.
package loops
