package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// interruptSignals end a verb early: Ctrl-C, SIGTERM from a supervisor
// or kill, and SIGHUP from a closed terminal. Each cancels the verb's
// context so it stops at a safe point (temporary files removed, no ref
// half-moved); tine then says so and ends itself by the same signal
// (endBy), so a shell loop running tine stops as it would for git.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// startIgnored says, for each of interruptSignals, whether tine
// inherited it as ignored (nohup ignores SIGHUP; a shell ignores SIGINT in
// a background job). It is read at package initialisation, before any
// signal.Notify clears the runtime's record of it (an array: nothing to
// allocate at every start).
var startIgnored = [...]bool{signal.Ignored(os.Interrupt), signal.Ignored(syscall.SIGTERM), signal.Ignored(syscall.SIGHUP)}

// ignoredAtStart reports whether tine inherited sig as ignored. A SIGHUP
// so inherited stays ignored, as nohup asks; and tine never ends itself by
// a signal it was started ignoring, since signal.Reset would restore the
// ignoring and the signal would not end it.
func ignoredAtStart(sig os.Signal) bool {
	for i, s := range interruptSignals {
		if s == sig {
			return startIgnored[i]
		}
	}
	return false
}

// interruptedError is a verb stopped by a signal: the error line says
// "interrupted" and what was kept, then tine ends itself by the signal
// (128+N where it cannot).
type interruptedError struct {
	sig  os.Signal
	note string // what the verb kept or what to run next, or ""
}

func (e *interruptedError) Error() string {
	if e.note == "" {
		return "interrupted"
	}
	return "interrupted; " + e.note
}

// code is 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM,
// 129 for SIGHUP): the status where tine cannot end itself by the signal.
func (e *interruptedError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// quickReader is a verb that may say, once its command line is parsed,
// that it only reads a few files and writes, holds and starts nothing, so
// any moment is a safe point to end it: it then runs without the interrupt
// handler, whose os/signal goroutines tie up two threads the runtime must
// start (about a seventh of a `rev-parse` process's CPU, issue 13 item 6).
// Such a verb ends by the signal at once, as git does, and as a handled
// interrupt ends too, only without the "interrupted" line; a SIGINT it was
// started ignoring (a shell's background job) stays ignored.
type quickReader interface {
	quickRead() bool
}

// catchesInterrupts reports whether the verb cmd runs under the interrupt
// handler: every verb but a quickReader that says so.
func catchesInterrupts(cmd any) bool {
	q, ok := cmd.(quickReader)
	return !ok || !q.quickRead()
}

// interruptContext returns the context a verb that catches interrupts
// runs under: cancelled, with an *interruptedError as its cause, by the
// first interrupt signal.
// That first signal also restores the default action, so a second one
// ends a verb that does not stop at once (as git does).
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	for _, s := range interruptSignals {
		// SIGINT and SIGTERM are caught even when inherited as ignored,
		// as tine always has; SIGHUP is left to nohup.
		if s != syscall.SIGHUP || !ignoredAtStart(s) {
			signal.Notify(sigs, s)
		}
	}
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			cancel(&interruptedError{sig: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// holdInterrupts keeps the interrupt signals caught, and so from ending
// tine, until release is called: for a child that owns the terminal (the
// pager) and must not be left running on it by tine's end. A signal that
// arrives meanwhile still cancels the verb's context if it is the first.
func holdInterrupts() (release func()) {
	c := make(chan os.Signal, 1)
	for _, s := range interruptSignals {
		if s != syscall.SIGHUP || !ignoredAtStart(s) {
			signal.Notify(c, s)
		}
	}
	return func() { signal.Stop(c) }
}

// interrupted turns err into an *interruptedError when a signal cancelled
// ctx and err is that cancellation. A cancellation from elsewhere (a
// library's own deadline or stop) and any other error stay as they are,
// so an interrupt never masks a real failure.
func interrupted(ctx context.Context, verb string, err error) error {
	var ie *interruptedError
	if err == nil || !errors.As(context.Cause(ctx), &ie) {
		return err
	}
	// net/http wraps the cause itself rather than context.Canceled.
	if !errors.Is(err, context.Canceled) && !errors.Is(err, ie) {
		return err
	}
	return &interruptedError{sig: ie.sig, note: interruptNote(verb)}
}

// signalIsTheirEnd holds the verbs for which an interrupt is how they
// end, not a reason to fail: serve and view shut down on it and exit 0,
// and record passes it on to its command and ends as the command ended.
var signalIsTheirEnd = map[string]bool{"serve": true, "view": true, "record": true}

// lateInterrupt is the outcome of a verb that completed although an
// interrupt arrived while it ran (it had passed its last point to stop,
// or never needed to check): its work is done and kept, and the line
// says so, but tine still ends by the signal, so a shell loop around it
// stops as the README's exit codes promise. Before, such a verb exited 0
// and the loop went on. nil when no interrupt came or the verb is one of
// signalIsTheirEnd.
func lateInterrupt(ctx context.Context, verb string) error {
	var ie *interruptedError
	if !errors.As(context.Cause(ctx), &ie) || signalIsTheirEnd[verb] {
		return nil
	}
	return &interruptedError{sig: ie.sig, note: "the command had completed before it could stop"}
}

// interruptNote says what an interrupted verb kept and what to run next,
// where the verb knows it; "" for verbs that leave nothing behind.
func interruptNote(verb string) string {
	switch verb {
	case "clone":
		return "the partly made repository was removed; run tine clone again"
	case "fetch", "pull", "push":
		return "refs not yet moved kept their old value; run tine " + verb + " again to finish"
	case "import":
		return "the run was not changed; run tine import again"
	case "gc", "repack":
		return "the repository is intact; run tine " + verb + " again to finish"
	case "loop run":
		return "what was recorded so far stays"
	default:
		return ""
	}
}
