package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tinehq/tine/plumbing"
)

// env is what every verb's Run receives: the process's streams, the global
// flags and the name of the verb, so rendering and errors need no globals
// and tests can run the whole command in-process.
type env struct {
	ctx    context.Context
	verb   string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	color  bool
	// colorMode is --color (auto, always, never): what colorFor applies
	// to a stream other than stdout (record's stderr summary).
	colorMode string
	// noPager is --no-pager: page never runs $PAGER.
	noPager  bool
	repoFlag string
	getenv   func(string) string
	// progress is the verb's progress line once newProgress made one.
	progress *progressLine
}

// openRepo opens the repository the command runs against: --repo DIR when
// given, else $TINE_DIR, else the nearest .tine at or above the current
// directory (plumbing.Discover).
func (e *env) openRepo() (*plumbing.Repo, error) {
	return e.openRepoWith(plumbing.OpenOptions{})
}

// openRepoWith is openRepo with options; waits on the repository's locks
// (a writer behind gc --prune, a gc behind another) are announced on
// stderr, one line each, so nobody waits without knowing why.
func (e *env) openRepoWith(opt plumbing.OpenOptions) (*plumbing.Repo, error) {
	opt.Notice = func(msg string) { fmt.Fprintf(e.stderr, "tine %s: %s\n", e.verb, msg) }
	if e.repoFlag != "" {
		return plumbing.OpenWith(e.repoFlag, opt)
	}
	return plumbing.DiscoverWith("", opt)
}

// refuseRepoFlag rejects --repo for verbs that never open a repository, so
// the flag is refused rather than silently ignored (ARCHITECTURE.md §5).
func (e *env) refuseRepoFlag(hint string) error {
	if e.repoFlag == "" {
		return nil
	}
	if hint != "" {
		return usagef("--repo has no effect with %s: %s", e.verb, hint)
	}
	return usagef("--repo has no effect with %s", e.verb)
}

// printer returns a human-output printer on stdout.
func (e *env) printer() *printer {
	return &printer{w: e.stdout, color: e.color}
}

// emit prints a verb's result: the JSON object when asJSON, else the
// verb's own text rendering.
func (e *env) emit(asJSON bool, result any, human func(p *printer)) error {
	if asJSON {
		return writeJSON(e.stdout, e.verb, result)
	}
	p := e.printer()
	human(p)
	return p.err
}
