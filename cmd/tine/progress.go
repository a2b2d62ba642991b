package main

import (
	"fmt"
	"os"
	"time"

	"github.com/tinehq/tine/plumbing"
)

// progressDelayEnv names a hidden variable overriding progressDelay (a Go
// duration, e.g. "0s"): the tty tests set it so progress shows on small
// repositories without a timing assumption. It is not a user setting.
const progressDelayEnv = "TINE_PROGRESS_DELAY"

// progressDelay is how long work runs before progress shows: work done
// within a second needs no progress line.
const progressDelay = time.Second

// progressEvery throttles redraws to at most ten a second.
const progressEvery = 100 * time.Millisecond

// progressLine is the one progress renderer of the CLI: a single stderr
// line rewritten in place, shown only when stderr is a terminal and only
// once the work has run for progressDelay, cleared when the verb ends
// (run calls endProgress). gc, repack, fsck, pack, unpack, import and
// index rebuild/update report through it; stdout is never touched, so
// --json output is unaffected.
type progressLine struct {
	f       *os.File
	verb    string
	start   time.Time
	delay   time.Duration
	last    time.Time
	drawn   bool
	lastMsg string
}

// newProgress returns the verb's progress line, or nil when stderr is not
// a terminal (a nil *progressLine ignores reports).
func (e *env) newProgress() *progressLine {
	if e.progress != nil {
		return e.progress
	}
	f, ok := e.stderr.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	delay := progressDelay
	if e.getenv != nil {
		if d, err := time.ParseDuration(e.getenv(progressDelayEnv)); err == nil && d >= 0 {
			delay = d
		}
	}
	e.progress = &progressLine{f: f, verb: e.verb, start: time.Now(), delay: delay}
	return e.progress
}

// report shows done of total items of phase (total 0: a phase of unknown
// size), throttled, once the delay has passed.
func (p *progressLine) report(phase string, done, total int) {
	if p == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < p.delay || (p.drawn && now.Sub(p.last) < progressEvery) {
		return
	}
	var msg string
	switch {
	case total > 0:
		msg = fmt.Sprintf("%s: %s %d/%d (%d%%)", p.verb, phase, done, total, done*100/total)
	case done > 0:
		msg = fmt.Sprintf("%s: %s %d…", p.verb, phase, done)
	default:
		msg = fmt.Sprintf("%s: %s…", p.verb, phase)
	}
	if msg == p.lastMsg {
		return
	}
	p.last, p.drawn, p.lastMsg = now, true, msg
	fmt.Fprintf(p.f, "\r%s\033[K", msg)
}

// end clears the line if anything was drawn, so the verb's own stderr
// lines (and the shell prompt) start at column zero on a clean line.
func (p *progressLine) end() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.f, "\r\033[K")
	p.drawn = false
}

// endProgress ends the verb's progress line, if it has one.
func (e *env) endProgress() { e.progress.end() }

// plumbingProgress adapts the progress line to plumbing's callbacks (gc,
// repack, fsck, pack, unpack); nil when there is nothing to show on.
func (e *env) plumbingProgress() func(plumbing.GCProgress) {
	p := e.newProgress()
	if p == nil {
		return nil
	}
	return func(pr plumbing.GCProgress) { p.report(pr.Phase, pr.Done, pr.Total) }
}
