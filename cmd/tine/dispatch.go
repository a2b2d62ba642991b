package main

import "github.com/alecthomas/kong"

// verbRunner is what every verb struct implements: Run with the command's
// environment.
type verbRunner interface {
	Run(e *env) error
}

// runVerb runs the selected verb, then the Run of each command above it
// (none has one today), in the order kong's Context.Run calls them.
// kong finds those methods and their arguments by reflection (method
// sets, a function type built for each, a reflective call): a few dozen
// page faults of every process start, where every tine verb takes the
// same *env. No verb uses kong's other run-time features (Provide
// methods, AfterRun hooks, bound values; TestVerbsRunWithoutKongHooks),
// so calling Run directly does what kong would. A selection without any
// Run (which kong's parser does not produce) is still left to kong,
// whose error names it.
func runVerb(kctx *kong.Context, e *env) error {
	var runners []verbRunner
	for n := kctx.Selected(); n != nil; n = n.Parent {
		if !n.Target.IsValid() || !n.Target.CanAddr() {
			continue
		}
		if r, ok := n.Target.Addr().Interface().(verbRunner); ok {
			runners = append(runners, r)
		}
	}
	if len(runners) == 0 {
		return kctx.Run(e)
	}
	for _, r := range runners {
		if err := r.Run(e); err != nil {
			return err
		}
	}
	return nil
}
