package plumbing

import (
	"fmt"
	"strings"
)

// NoRefError is Repo.RefName's error for a short name (no "/") that no
// existing ref has under any namespace it is tried in. It unwraps to
// ErrUnknownRevision and to the ref-name error of the name as given (its
// missing namespace), for callers that test for either.
type NoRefError struct {
	// Name is the short name as given.
	Name string
	// Tried lists the full names looked up, in order.
	Tried []string
	err   error
}

// Error says that no ref has the name, and where it was looked for.
func (e *NoRefError) Error() string {
	return fmt.Sprintf("no ref is named %q (tried %s)", e.Name, strings.Join(e.Tried, ", "))
}

// Unwrap returns ErrUnknownRevision and the name's ref-name error.
func (e *NoRefError) Unwrap() []error { return []error{ErrUnknownRevision, e.err} }

// noRef builds the NoRefError of short name s, whose ref-name error is err.
func noRef(s string, err error) *NoRefError {
	tried := make([]string, len(dwimNamespaces))
	for i, ns := range dwimNamespaces {
		tried[i] = ns + "/" + s
	}
	return &NoRefError{Name: s, Tried: tried, err: err}
}
