package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tinehq/tine/internal/textsafe"
	"github.com/tinehq/tine/plumbing"
)

// Exit codes (ARCHITECTURE.md §5). Verbs never choose their own: a Run
// returns nil, a usage error or any other error, and exitCode maps it.
const (
	exitOK      = 0 // success
	exitFailure = 1 // any failure or refusal (stale ref, corrupt object, fsck problem)
	exitUsage   = 2 // the command line itself is wrong (kong's own default, 80, is remapped)
	// A verb stopped by signal N ends tine by that signal, which a shell
	// reports as 128+N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP); 128+N is
	// also the exit status where it cannot (interrupt.go).
)

// usageError is a command line that parsed but cannot be honoured as
// given: competing flags, or a flag the chosen mode would silently ignore.
// It exits 2 like a parse error, because the fix is to change the command.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef builds a usageError.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// silentError carries an exit status for a failure the verb has already
// reported in full on stdout (fsck listing its problems): no error line.
// sig, when set, is the signal tine ends itself by instead (endBy): record
// passes on the interrupt that ended its command, as a shell would see it.
type silentError struct {
	code int
	sig  os.Signal
}

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode maps a Run error to the process status.
func exitCode(err error) int {
	var u *usageError
	var s *silentError
	var ie *interruptedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &ie):
		return ie.code()
	case errors.As(err, &s):
		return s.code
	default:
		return exitFailure
	}
}

// endSignal is the signal tine ends itself by after reporting err: the
// one that interrupted the verb, or the one that ended record's command;
// nil for every other outcome.
func endSignal(err error) os.Signal {
	var ie *interruptedError
	var s *silentError
	switch {
	case errors.As(err, &ie):
		return ie.sig
	case errors.As(err, &s):
		return s.sig
	default:
		return nil
	}
}

// reportError writes the single stderr line for err and returns the exit
// status. The line is `tine <verb>: <message>`; a message that already
// starts with the verb (libraries name their operation) is not repeated,
// and the message goes through oneLine, so the contract of one line holds
// and nothing in it drives the terminal or floods it.
func reportError(stderr io.Writer, verb string, err error) int {
	code := exitCode(err)
	var s *silentError
	if errors.As(err, &s) {
		return code
	}
	msg := oneLine(err.Error())
	msg = stripVerb(msg, verb)
	if code == exitUsage {
		msg += "; see " + helpCommand(verb)
	} else if h := hint(err); h != "" && !strings.Contains(msg, h) {
		msg += "; " + h
	}
	prefix := "tine"
	if verb != "" {
		prefix += " " + verb
	}
	fmt.Fprintf(stderr, "%s: %s\n", prefix, msg)
	return code
}

// stripVerb drops a leading "<verb>: " or "<verb> " from a library message
// ("update-ref heads/main: ..."), since the line already starts with
// "tine <verb>: ".
func stripVerb(msg, verb string) string {
	if verb == "" {
		return msg
	}
	if rest, ok := strings.CutPrefix(msg, verb+": "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(msg, verb+" "); ok {
		return rest
	}
	return msg
}

// helpCommand names the help a usage error points at.
func helpCommand(verb string) string {
	if verb == "" {
		return "tine --help"
	}
	return "tine " + verb + " --help"
}

// maxErrorLine bounds the message oneLine returns, in bytes: an error can
// quote a server's, a model provider's or a step command's words whole,
// and one line of 4 KiB still reads on a terminal while a megabyte floods
// it.
const maxErrorLine = 4 << 10

// oneLine makes s one line that is safe for a terminal: it folds line
// breaks ("; "), trims each line, and shows what is left through
// textsafe.Clip: control and format characters (an escape sequence, a
// bidi override, U+2028) and invalid UTF-8 as visible escapes (\x1b,
// \u202e, \xff), within maxErrorLine bytes and a note of how many were
// cut. Error text carries bytes no user chose (a ref or path name from a
// pulled repository, an imported event's values, a provider's answer);
// other characters, non-ASCII letters included, are kept as they are.
func oneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return textsafe.Clip(strings.Join(lines, "; "), maxErrorLine)
}

// hints say what to do after a plumbing failure whose message names only
// what failed (ARCHITECTURE.md §5: "what failed and what to do").
var hints = []struct {
	err  error
	hint string
}{
	{plumbing.ErrRepositoryExists, "nothing was changed"},
	{plumbing.ErrNoRepository, "run tine init, or pass --repo DIR"},
	{plumbing.ErrUnknownRevision, "list names with tine refs"},
	{plumbing.ErrAmbiguousRevision, "give more hex digits or the full ref name"},
}

// hint returns the advice for err, or "". A short name given as a ref
// to create already says what to give instead.
func hint(err error) string {
	var nr *plumbing.NoRefError
	if errors.As(err, &nr) && nr.Creating {
		return ""
	}
	for _, h := range hints {
		if errors.Is(err, h.err) {
			return h.hint
		}
	}
	return ""
}
