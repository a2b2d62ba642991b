package plumbing

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the plumbing layer. Each is wrapped with the path, ref
// or revision it concerns; test with errors.Is.
var (
	// ErrNotRepository means no repository was found at a path (Open) or
	// at or above it (Discover); the error names the absolute path.
	ErrNotRepository = errors.New("not a tine repository")
	// ErrRepositoryExists means init found a repository already in place.
	ErrRepositoryExists = errors.New("repository already exists")
	// ErrNotConfined means a repository path is a symlink, not the expected
	// kind of file, or would escape the repository (SPEC §2.1).
	ErrNotConfined = errors.New("path is not confined to the repository")
	// ErrUnknownRevision means a revision names no object or ref.
	ErrUnknownRevision = errors.New("unknown revision")
	// ErrBeyondShallow means an operation needs an event a shallow fetch
	// left out (SPEC §2.7): the fix is to fetch more history.
	ErrBeyondShallow = errors.New("beyond the shallow boundary: deepen the fetch (tine fetch --deepen N)")
	// ErrBadRevision means a revision is syntactically invalid.
	ErrBadRevision = errors.New("bad revision syntax")
	// ErrNotStored means REV~N names a run no stored object holds; the
	// error is a *NotStoredError naming the run and event.
	ErrNotStored = errors.New("the run is derived, not stored")
	// ErrAmbiguousRevision means a prefix or short ref name matches more than
	// one object or ref; the error is an *AmbiguousError listing them.
	ErrAmbiguousRevision = errors.New("ambiguous revision")
	// ErrBadInput means hash-object or update-ref --stdin input was refused.
	ErrBadInput = errors.New("bad input")
	// ErrNoRepository means a verb that needs a repository got none.
	ErrNoRepository = errors.New("this command needs a repository")
)

// AmbiguousError reports a revision matching several candidates (objects
// for a hex prefix, refs for a short name). It wraps ErrAmbiguousRevision.
type AmbiguousError struct {
	Revision   string
	Candidates []string
}

// Error lists the candidates, so the user can pick one.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("ambiguous revision %q: candidates %s", e.Revision, strings.Join(e.Candidates, ", "))
}

// Unwrap makes errors.Is(err, ErrAmbiguousRevision) hold.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguousRevision }
